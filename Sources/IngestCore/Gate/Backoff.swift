/// Capped exponential backoff with jitter: 0.5 s, 1 s, 2 s … up to `cap`, each wait drawn
/// between half and the whole step, so many agents that failed together do not retry together.
public struct Backoff: Sendable {
    public var base: Double = 0.5
    public var cap: Double = 30
    private var failures = 0

    public init(base: Double = 0.5, cap: Double = 30) { self.base = base; self.cap = cap }

    public mutating func next() -> Double {
        defer { advance() }
        return draw()
    }

    /// The wait for the next failure, without counting it: the gate decides first and counts
    /// only when it does wait this long.
    public func draw() -> Double {
        let step = min(cap, base * Double(1 << min(failures, 20)))
        return Double.random(in: (step / 2)...step)
    }

    /// Counts a failure: the next wait's step doubles, up to `cap`.
    public mutating func advance() { failures += 1 }

    public mutating func reset() { failures = 0 }
}
