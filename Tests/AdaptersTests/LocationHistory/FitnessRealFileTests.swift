import Foundation
import Testing
@testable import Adapters

/// KML, TCX and FIT files other programs wrote (fixtures/location-history/fetch-real-files.sh,
/// fetched and made at test time, never committed): Google's KML samples from pykml's sdist,
/// gpsbabel's KML, TCX and FIT writers, Garmin's FIT SDK encoder. The readers find the same
/// timed points as gpsbabel or Garmin's own decoder reads from each file. The fetch needs PyPI:
/// without it the test fails, naming the step.
@Suite(.serialized)
struct FitnessRealFileTests {
    static let folder: Result<String, GenerationFailed> = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("real-fitness-\(UUID().uuidString)").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [HistoryParserTests.fixture("fetch-real-files.sh"), directory]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(GenerationFailed(description: "\(error)")) }
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(GenerationFailed(description: "fetch-real-files.sh exited with \(process.terminationStatus): \(log)"))
        }
        return .success(directory)
    }()

    struct GenerationFailed: Error, CustomStringConvertible { var description: String }

    @Test func everyFileGivesTheTimedPointsTheOtherReaderFinds() throws {
        let folder = try FitnessRealFileTests.folder.get()
        let counts = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/counts.json"))) as? [String: [String: Any]])
        #expect(counts.count == 8, "\(counts.keys.sorted())")
        for (name, want) in counts.sorted(by: { $0.key < $1.key }) {
            let (format, batch, failure) = try HistoryParserTests.read(FileByteStream(path: folder + "/files/" + name))
            let expected: HistoryFormat = name.hasSuffix(".fit") ? .fit : name.hasSuffix(".tcx") ? .tcx : .kml
            #expect(format == expected && failure == nil && batch.bad == 0, "\(name): \(String(describing: format)), \(String(describing: failure)), \(batch.bad) bad")
            #expect(batch.points.count + batch.visits.count == want["points"] as? Int, "\(name): \(batch.points.count) points, \(want["by"] ?? "") reads \(want["points"] ?? "")")
            guard let first = want["first"] as? [Double], let point = batch.points.first else { continue }
            #expect(point.time == first[0], "\(name) first time")
            #expect(abs(point.latitude - first[1]) < 1e-6 && abs(point.longitude - first[2]) < 1e-6, "\(name): \(point) vs \(first)")
        }
    }
}
