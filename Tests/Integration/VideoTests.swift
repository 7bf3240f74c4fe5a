import Foundation
import IngestCore
import Testing

/// Videos as ffmpeg and exiftool write them, and Live Photo pairs, through the release binary.
@Suite("photos adapter: videos and Live Photos", .serialized)
struct VideoTests {
    /// Runs one of fixtures/photos' generators into `dir`.
    func generate(_ script: String, _ args: [String]) throws {
        let r = try runProcess("/bin/bash", [repoRoot + "/fixtures/photos/" + script] + args)
        try #require(r.status == 0, "\(script) failed: \(r.stderr)")
    }

    func sandbox(scanning folder: String) throws -> AgentSandbox {
        let agent = try AgentSandbox()
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(folder)\n")
        return agent
    }

    func dryRun(_ agent: AgentSandbox) throws -> (items: [String: JSONValue], stderr: String) {
        let r = try agent.run(["run", "--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
        var items: [String: JSONValue] = [:]
        for line in r.stdout.split(separator: "\n") {
            if let item = JSONValue.parse(Array(line.utf8))?["item"], let name = item["file"]?["name"]?.stringValue { items[name] = item }
        }
        return (items, r.stderr)
    }

    @Test func videosFromFfmpegAndExiftoolAgreeWithExiftool() throws {
        let agent = try AgentSandbox()
        let library = agent.root + "/videos"
        try generate("make-videos.sh", [library])
        let expected = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: library + "/expected.json")))))
        try FileManager.default.removeItem(atPath: library + "/expected.json")
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(library)\n")
        let (items, _) = try dryRun(agent)
        var checked: [String] = []
        for case .object(let want) in expected.arrayValue ?? [] {
            let name = try #require(want["SourceFile"]?.stringValue)
            let item = try #require(items[name], "no item for \(name)")
            #expect(item["media"] == "video", "\(name)")
            // 2e-5°: MP4's 3GPP `loci` is 16.16 fixed point, and exiftool prints it to 5 decimals.
            let lat = try #require(exiftoolValue(want, "GPSLatitude")?.doubleValue, "exiftool has no latitude for \(name)")
            let lon = try #require(exiftoolValue(want, "GPSLongitude")?.doubleValue)
            #expect(abs((item["lat"]?.doubleValue ?? .nan) - lat) < 2e-5, "\(name) latitude")
            #expect(abs((item["lon"]?.doubleValue ?? .nan) - lon) < 2e-5, "\(name) longitude")
            // The keyed (or XMP) date with its offset where written, else mvhd's UTC creation time.
            let withOffset = (exiftoolValue(want, "CreationDate") ?? exiftoolValue(want, "DateTimeOriginal"))?.stringValue
            let takenAt = try #require(withOffset.map { secondOf($0) + String($0.suffix(6)) } ?? want["QuickTime:CreateDate"]?.stringValue.map { secondOf($0) + "Z" })
            #expect(item["taken_at"]?.stringValue == takenAt, "\(name) taken_at")
            if let make = exiftoolValue(want, "Make")?.stringValue { #expect(item["camera"]?["make"]?.stringValue == make, "\(name) make") }
            if let model = exiftoolValue(want, "Model")?.stringValue { #expect(item["camera"]?["model"]?.stringValue == model, "\(name) model") }
            checked.append(name)
        }
        #expect(checked.count == 13 && items.count == 13, "\(checked.sorted()) vs \(items.keys.sorted())")
        #expect(Set(checked.map { String($0.split(separator: ".").last!) }) == ["mov", "mp4", "m4v", "3gp"])
    }

    @Test func exiftoolsOwnQuickTimeTestImagesReadWithoutError() throws {
        let agent = try AgentSandbox()
        let folder = agent.root + "/real"
        try generate("fetch-exiftool-images.sh", [folder, "QuickTime.mov", "QuickTime.heic"])
        try FileManager.default.removeItem(atPath: folder + "/apt")
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(folder)\n")
        let (items, stderr) = try dryRun(agent)
        // Neither carries a place: both are read and counted as without GPS, neither is refused.
        #expect(items.isEmpty)
        #expect(!stderr.contains("QuickTime."), "\(stderr)")
        #expect(stderr.contains("2 photos without GPS"), "\(stderr)")
    }

    @Test func liveStillsAndTheirMoviesAreOneItem_pairedByIdentifierOrNameAndTime() throws {
        let agent = try AgentSandbox()
        let folder = agent.root + "/camera"
        try generate("make-live-photos.sh", [folder])
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(folder)\n")
        let (items, _) = try dryRun(agent)
        #expect(Set(items.keys) == ["IMG_0001.JPG", "IMG_0005.HEIC", "holiday.jpg", "IMG_0002.JPG",
                                    "IMG_0003.JPG", "IMG_0003.MOV", "IMG_0004.JPG", "IMG_0004.MOV"])
        #expect(items["IMG_0003.MOV"]?["media"] == "video" && items["IMG_0001.JPG"]?["media"] == nil)
        #expect(items["IMG_0003.MOV"]?["taken_at"] == "2021-03-04T17:45:00-05:00")
    }

    @Test func deletingTheMovieChangesNothing_deletingTheStillLetsTheMovieTakeOver() throws {
        let node = try TestNode()
        let agent = try AgentSandbox()
        let folder = agent.root + "/camera"
        try generate("make-live-photos.sh", [folder])
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(folder)\n")
        try agent.usePairedNode(node.url, token: node.token)
        func live() throws -> [String: JSONValue] {
            var byName: [String: JSONValue] = [:]
            for record in try node.items("photos") where record["deleted"] != .bool(true) {
                if let item = record["item"], let name = item["file"]?["name"]?.stringValue { byName[name] = item }
            }
            return byName
        }
        func accepted() throws -> Int64? { try node.admin("counts")["endpoints"]?["photos"]?["accepted"]?.intValue }
        func remove(_ name: String) throws { try FileManager.default.removeItem(atPath: folder + "/" + name) }

        #expect(try agent.run(["run"]).status == 0)
        let first = try live()
        #expect(first.count == 8)
        let acceptedFirst = try accepted()

        try remove("IMG_0001.MOV")                                    // the movie of an identifier pair
        #expect(try agent.run(["run"]).status == 0)
        #expect(try accepted() == acceptedFirst)
        #expect(try live() == first)

        try remove("IMG_0002.JPG")                                    // the still of a name pair
        try remove("holiday.jpg")                                     // the still of a renamed identifier pair
        #expect(try agent.run(["run"]).status == 0)
        let taken = try live()
        #expect(taken.count == 8)
        #expect(taken["IMG_0002.JPG"] == nil && taken["holiday.jpg"] == nil)
        #expect(taken["IMG_0002.MOV"]?["media"] == "video" && taken["IMG_0002.MOV"]?["taken_at"] == "2022-05-01T10:00:01+09:00")
        #expect(taken["clip-7.mov"]?["media"] == "video" && taken["clip-7.mov"]?["lat"]?.doubleValue == 51.5007)

        try remove("IMG_0002.MOV")                                    // now its own item: tombstoned with it
        try remove("IMG_0005.HEIC")
        try remove("IMG_0005.MOV")                                    // a whole pair at once
        #expect(try agent.run(["run"]).status == 0)
        let last = try live()
        #expect(Set(last.keys) == ["IMG_0001.JPG", "clip-7.mov", "IMG_0003.JPG", "IMG_0003.MOV", "IMG_0004.JPG", "IMG_0004.MOV"])
    }
}
