/// Capped exponential backoff with jitter: 0.5 s, 1 s, 2 s … up to `cap`, each wait drawn
/// between half and the whole step, so many agents that failed together do not retry together.
public struct Backoff: Sendable {
    public var base: Double = 0.5
    public var cap: Double = 30
    private var failures = 0

    public init(base: Double = 0.5, cap: Double = 30) { self.base = base; self.cap = cap }

    public mutating func next() -> Double {
        let step = min(cap, base * Double(1 << min(failures, 20)))
        failures += 1
        return Double.random(in: (step / 2)...step)
    }

    public mutating func reset() { failures = 0 }
}
