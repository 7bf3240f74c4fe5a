import Foundation
import Testing
@testable import Adapters

/// Files made by real encoders (ImageMagick, libheif, libavif, libwebp) and tagged by
/// exiftool with random values, checked against what exiftool itself reads back.
@Suite struct FixtureTests {
    @Test("every fixture matches exiftool -n", .enabled(if: Fixtures.exiftoolAvailable, Fixtures.skipReason))
    func matchesExiftool() throws {
        let fixtures = try Fixtures.shared.get()
        #expect(Set(fixtures.entries.map(\.format)) == [.jpeg, .heif, .png, .tiff, .webp, .xmp])
        for entry in fixtures.entries {
            let context = Comment(rawValue: "\(entry.name) in \(fixtures.directory) (FIXTURE_SEED=\(fixtures.seed))")
            let expected = entry.expected
            let (metadata, format, bytesRead) = try PhotoGeotagReader.read(path: fixtures.directory + "/" + entry.name)
            #expect(format == entry.format, context)
            #expect(bytesRead < 128 << 10, context)
            #expect(expected.latitude != nil, context)
            expectClose(metadata.latitude, expected.latitude, context)
            expectClose(metadata.longitude, expected.longitude, context)
            expectClose(metadata.altitudeM, expected.altitude, context)
            expectClose(metadata.horizontalErrorM, expected.horizontalError, context)
            #expect(metadata.dateTimeOriginal == expected.dateTime, context)
            #expect(metadata.offset == expected.offset, context)
            // exiftool prints "050" as a string but "340" as the number 340, so compare values.
            #expect(metadata.subSecond.flatMap { Int($0) } == expected.subSecond.flatMap { Int($0) }, context)
            #expect(metadata.gpsTimestampUTC == expected.gpsTime, context)
            #expect(metadata.make == expected.make, context)
            #expect(metadata.model == expected.model, context)
            #expect(metadata.imageUniqueID == expected.uniqueID, context)
            #expect(metadata.cameraSerial == expected.serial, context)
        }
    }

    @Test("truncated copies of every fixture fail cleanly or still read", .enabled(if: Fixtures.exiftoolAvailable, Fixtures.skipReason))
    func truncatedFixtures() throws {
        let fixtures = try Fixtures.shared.get()
        let scratch = try ScratchDirectory()
        for entry in fixtures.entries {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixtures.directory + "/" + entry.name)))
            let cuts = Set([0, 1, 4, 8, 12, 16, 24, 32, bytes.count / 4, bytes.count / 2, bytes.count - 100, bytes.count - 1])
            for cut in cuts where cut >= 0 && cut < bytes.count {
                let path = try scratch.write(Array(bytes.prefix(cut)), as: "cut-\(cut)-" + entry.name)
                if let error = readFailure(path) {
                    #expect(!error.reason.isEmpty && !error.reason.contains("\n"), "\(entry.name) cut at \(cut): \(error.reason)")
                }
            }
        }
    }

    private func expectClose(_ actual: Double?, _ expected: Double?, _ context: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        switch (actual, expected) {
        case (nil, nil): break
        case let (actual?, expected?):
            #expect(abs(actual - expected) < 1e-6, "\(actual) vs exiftool \(expected): \(context)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(String(describing: actual)) vs exiftool \(String(describing: expected)): \(context)", sourceLocation: sourceLocation)
        }
    }
}

/// The fixture set, generated once per test process by make-fixtures.sh.
struct Fixtures: Sendable {
    struct Entry: Sendable {
        let name: String
        let format: PhotoFormat
        let expected: Expected
    }

    /// The values exiftool read back, mapped onto PhotoMetadata's fields.
    struct Expected: Sendable {
        var latitude, longitude, altitude, horizontalError: Double?
        var dateTime, gpsTime: LocalDateTime?
        var offset, subSecond, make, model, uniqueID, serial: String?
    }

    struct GenerationFailed: Error, CustomStringConvertible {
        let description: String
    }

    let directory: String
    let seed: String
    let entries: [Entry]

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fixtures/photos/make-fixtures.sh").path
    static let skipReason: Comment = "exiftool is not installed (apt-get install libimage-exiftool-perl); fixture comparison skipped"

    static let exiftoolAvailable: Bool = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/exiftool") }
    }()

    static let shared: Result<Fixtures, GenerationFailed> = {
        do {
            return .success(try generate())
        } catch let error as GenerationFailed {
            return .failure(error)
        } catch {
            return .failure(GenerationFailed(description: "\(error)"))
        }
    }()

    private static func generate() throws -> Fixtures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("photometa-fixtures-\(UUID().uuidString)").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, directory]
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw GenerationFailed(description: "make-fixtures.sh exited with \(process.terminationStatus): \(log)")
        }
        let seed = log.split(separator: "\n").first { $0.contains("FIXTURE_SEED=") }.map { String($0.split(separator: "=").last!) } ?? "?"

        let manifest = try String(contentsOfFile: directory + "/manifest.tsv", encoding: .utf8)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/expected.json")))
        let records = (json as? [[String: Any]]) ?? []
        let byName = Dictionary(records.map { (($0["SourceFile"] as? String) ?? "", $0) }, uniquingKeysWith: { first, _ in first })

        var entries: [Entry] = []
        for line in manifest.split(separator: "\n") {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 2, let format = PhotoFormat(rawValue: fields[1]), let record = byName[fields[0]] else {
                throw GenerationFailed(description: "manifest line '\(line)' has no format or no exiftool record")
            }
            entries.append(Entry(name: fields[0], format: format, expected: expected(from: record)))
        }
        return Fixtures(directory: directory, seed: seed, entries: entries)
    }

    /// Maps one `exiftool -n -json -G` record; Exif wins over XMP as in the reader.
    private static func expected(from record: [String: Any]) -> Expected {
        func value(_ keys: String...) -> Any? { keys.lazy.compactMap { record[$0] }.first }
        func number(_ keys: String...) -> Double? {
            keys.lazy.compactMap { (record[$0] as? NSNumber)?.doubleValue }.first
        }
        func text(_ keys: String...) -> String? {
            keys.lazy.compactMap { key -> String? in
                if let string = record[key] as? String { return string }
                return (record[key] as? NSNumber)?.stringValue
            }.first
        }
        var expected = Expected()
        expected.latitude = number("Composite:GPSLatitude", "XMP:GPSLatitude")
        expected.longitude = number("Composite:GPSLongitude", "XMP:GPSLongitude")
        expected.altitude = number("Composite:GPSAltitude")
        expected.horizontalError = number("EXIF:GPSHPositioningError", "XMP:GPSHPositioningError")
        expected.make = text("EXIF:Make", "XMP:Make")
        expected.model = text("EXIF:Model", "XMP:Model")
        expected.uniqueID = text("EXIF:ImageUniqueID", "XMP:ImageUniqueID")
        expected.serial = text("EXIF:SerialNumber", "XMP:SerialNumber")
        if let date = text("EXIF:DateTimeOriginal", "XMP:DateTimeOriginal") {
            let parsed = exiftoolDate(date)
            expected.dateTime = parsed?.dateTime
            expected.subSecond = text("EXIF:SubSecTimeOriginal") ?? parsed?.fraction
            expected.offset = text("EXIF:OffsetTimeOriginal") ?? parsed?.offset
        }
        if let gps = text("Composite:GPSDateTime", "XMP:GPSDateTime"), let parsed = exiftoolDate(gps) {
            var time = parsed.dateTime
            time.nanosecond = Int((Double("0." + (parsed.fraction ?? "0")) ?? 0) * 1e9)
            expected.gpsTime = time
        }
        return expected
    }

    /// Splits exiftool's "YYYY:MM:DD HH:MM:SS[.fff][±HH:MM|Z]" independently of the reader's parser.
    private static func exiftoolDate(_ text: String) -> (dateTime: LocalDateTime, fraction: String?, offset: String?)? {
        let characters = Array(text)
        guard characters.count >= 19 else { return nil }
        let numbers = String(characters[0..<19]).split(whereSeparator: { ": ".contains($0) }).compactMap { Int($0) }
        guard numbers.count == 6 else { return nil }
        var rest = String(characters[19...])
        var fraction: String?
        if rest.hasPrefix(".") {
            let digits = rest.dropFirst().prefix { $0.isNumber }
            fraction = String(digits)
            rest = String(rest.dropFirst(1 + digits.count))
        }
        let offset = rest.isEmpty ? nil : rest == "Z" ? "+00:00" : rest
        let dateTime = LocalDateTime(year: numbers[0], month: numbers[1], day: numbers[2], hour: numbers[3], minute: numbers[4], second: numbers[5])
        return (dateTime, fraction, offset)
    }
}
