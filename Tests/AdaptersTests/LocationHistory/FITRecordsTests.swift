import Foundation
import Testing
@testable import Adapters

/// The FIT decoder on hand-built files (each record's bytes written here as the FIT protocol
/// lays them out) and on the generated Strava and Garmin exports.
struct FITRecordsTests {
    /// A FIT file's bytes: a 12-byte header, `body`, and a CRC (not checked by the reader).
    static func file(_ body: [UInt8], claimed: Int? = nil) -> [UInt8] {
        let size = UInt32(claimed ?? body.count)
        return [12, 0x20, 0x54, 0x08] + withUnsafeBytes(of: size.littleEndian, Array.init) + Array(".FIT".utf8) + body + [0, 0]
    }

    static func le(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    static func be(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
    static func semicircles(_ deg: Double) -> UInt32 { UInt32(bitPattern: Int32((deg * 2_147_483_648 / 180).rounded())) }

    /// 2024-06-01T06:00:00Z in FIT seconds.
    static let t0 = UInt32(1_717_221_600 - 631_065_600)

    static func read(_ bytes: [UInt8]) throws -> FitnessParserTests.Read { try HistoryParserTests.read(bytes: bytes) }

    @Test func recordsWithTimestampAndPositionAreFixesInEitherByteOrder() throws {
        typealias T = FITRecordsTests
        var body: [UInt8] = []
        // Local 0: record, little-endian: timestamp, lat, lon, enhanced_speed; one developer field of 2 bytes.
        body += [0x60, 0, 0, 20, 0, 4, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 73, 4, 0x86, 1, 0, 2, 0]
        body += [0x00] + T.le(T.t0) + T.le(T.semicircles(47.3769)) + T.le(T.semicircles(8.5417)) + T.le(1400) + [0xAA, 0xBB]
        // No position yet (invalid values): no point.
        body += [0x00] + T.le(T.t0 + 1) + T.le(0x7FFF_FFFF) + T.le(0x7FFF_FFFF) + T.le(0) + [0, 0]
        // Local 1: event (global 21), skipped by size.
        body += [0x41, 0, 0, 21, 0, 2, 253, 4, 0x86, 0, 1, 0]
        body += [0x01] + T.le(T.t0 + 2) + [0]
        // Local 0 redefined big-endian, without speed.
        body += [0x40, 0, 1, 0, 20, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
        body += [0x00] + T.be(T.t0 + 30) + T.be(T.semicircles(-33.9)) + T.be(T.semicircles(151.2))
        let (format, batch, failure) = try T.read(T.file(body))
        #expect(format == .fit && failure == nil && batch.bad == 0)
        let t = 1_717_221_600.0
        #expect(batch.points.map(\.time) == [t, t + 30])
        #expect(abs(batch.points[0].latitude - 47.3769) < 1e-7 && abs(batch.points[0].longitude - 8.5417) < 1e-7)
        #expect(batch.points[0].speed == 1.4)
        #expect(abs(batch.points[1].latitude + 33.9) < 1e-7 && abs(batch.points[1].longitude - 151.2) < 1e-7 && batch.points[1].speed == nil)
    }

    @Test func compressedTimestampsCountFromTheLastFullOneAndRollOver() throws {
        typealias T = FITRecordsTests
        var body: [UInt8] = []
        body += [0x40, 0, 0, 20, 0, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]       // local 0: with a timestamp
        body += [0x41, 0, 0, 20, 0, 2, 0, 4, 0x85, 1, 4, 0x85]                     // local 1: position only
        let start = T.t0 + 30                                                        // low five bits: 30
        let position = T.le(T.semicircles(47.3769)) + T.le(T.semicircles(8.5417))
        body += [0x00] + T.le(start) + position
        body += [0x80 | (1 << 5) | 31] + position        // +1 s
        body += [0x80 | (1 << 5) | 4] + position         // 4 < 31: rolled over, +5 s
        let (_, batch, failure) = try T.read(T.file(body))
        #expect(failure == nil)
        let t = 1_717_221_630.0
        #expect(batch.points.map(\.time) == [t, t + 1, t + 6])
    }

    @Test func aCutOrMadeUpFileThrowsAfterWhatCameBefore() throws {
        typealias T = FITRecordsTests
        var body: [UInt8] = [0x40, 0, 0, 20, 0, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
        body += [0x00] + T.le(T.t0) + T.le(T.semicircles(47.3769)) + T.le(T.semicircles(8.5417))
        body += [0x00] + T.le(T.t0 + 1) + T.le(T.semicircles(47.3769))
        let cut = try T.read(Array(T.file(body).dropLast(2)))
        #expect(cut.batch.points.count == 1 && cut.failure?.description.hasPrefix("FIT: cut off at byte") == true, "\(String(describing: cut.failure))")
        // A header that claims 4 GB, over a few bytes: nothing is allocated from the claim.
        let huge = try T.read(T.file(Array(body.prefix(15 + 13)), claimed: Int(UInt32.max)))
        #expect(huge.batch.points.count == 1 && huge.failure != nil)
        // Data of a local type never defined.
        let undefined = try T.read(T.file([0x03, 1, 2, 3]))
        #expect(undefined.failure?.description == "FIT: a data message of local type 3 before its definition at byte 12")
    }

    @Test func chainedFilesAreReadOneAfterAnother() throws {
        typealias T = FITRecordsTests
        func one(_ time: UInt32) -> [UInt8] {
            T.file([0x40, 0, 0, 20, 0, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85]
                + [0x00] + T.le(time) + T.le(T.semicircles(47.3769)) + T.le(T.semicircles(8.5417)))
        }
        let (format, batch, failure) = try T.read(one(T.t0) + one(T.t0 + 60))
        #expect(format == .fit && failure == nil)
        #expect(batch.points.map(\.time) == [1_717_221_600, 1_717_221_660], "the second file's definitions are its own")
        let trailing = try T.read(one(T.t0) + [0, 0, 0])
        #expect(trailing.batch.points.count == 1 && trailing.failure?.description == "FIT: no file header after the CRC at byte 42")
    }

    @Test func stravasGzippedFITAndGarminsZipInAZipGiveEveryRecord() throws {
        let gzipped = try FitnessParserTests.zipped("export_12345678.zip", entry: "activities/1234567890.fit.gz")
        let strava = try HistoryParserTests.read(GzipStream(MemoryByteStream(gzipped, chunk: 7)))
        #expect(strava.0 == .fit && strava.2 == nil && strava.1.points.count == 600, "three records before the GPS fix are no points")
        let first = try #require(strava.1.points.first)
        // As gpsbabel prints the file's first trackpoint: 47.376918, 8.541756, 408.0 m, 0.00 m/s.
        #expect(first.time == HistoryTime.parse("2024-06-10T06:00:00Z") && first.altitude == 408 && first.speed == 0)
        #expect(abs(first.latitude - 47.376918) < 1e-6 && abs(first.longitude - 8.541756) < 1e-6)
        #expect(strava.1.points.map(\.time) == (0..<600).map { first.time + Double($0) * 30 }, "compressed and big-endian halves in step")
        #expect(strava.1.points.compactMap(\.speed).max() == 12)
        let twice = try HistoryParserTests.read(GzipStream(MemoryByteStream(gzipped + gzipped, chunk: 7)))
        #expect(twice.1.points.count == 1200 && twice.2 == nil, "two gzip members are one content: here two chained FIT files")
        let cut = try HistoryParserTests.read(GzipStream(MemoryByteStream(Array(gzipped.dropLast(1000)), chunk: 7)))
        #expect(cut.2?.description == "gzip: cut off" && (300..<600).contains(cut.1.points.count), "\(cut.1.points.count) before the cut")

        let inner = try FitnessParserTests.zipped("a1b2c3d4_1.zip", entry: "DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip")
        let garmin = try HistoryParserTests.read(ZipEntryStream(MemoryByteStream(inner, chunk: 5)) { $0.hasSuffix(".fit") })
        #expect(garmin.0 == .fit && garmin.2 == nil && garmin.1.points.count == 600)
        #expect(garmin.1.points.first?.time == HistoryTime.parse("2024-06-11T06:00:00Z"))
    }
}
