import Foundation
import IngestCore
import Testing

/// A folder of photos in every format, tagged with random values by exiftool (the adapter
/// tests' own generator), with exiftool's `-n -json` reading beside them.
func makeTaggedLibrary(_ dir: String) throws -> [String: [String: JSONValue]] {
    let script = repoRoot + "/fixtures/photos/make-fixtures.sh"
    let r = try runProcess("/bin/bash", [script, dir])
    try #require(r.status == 0, "make-fixtures.sh failed: \(r.stderr)")
    let expected = try #require(JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/expected.json")))))
    var byName: [String: [String: JSONValue]] = [:]
    for entry in expected.arrayValue ?? [] {
        if case .object(let fields) = entry, let name = fields["SourceFile"]?.stringValue { byName[name] = fields }
    }
    try FileManager.default.removeItem(atPath: dir + "/expected.json")
    try FileManager.default.removeItem(atPath: dir + "/manifest.tsv")
    return byName
}

/// exiftool's value for a tag whatever group it came from, Composite first.
func exiftoolValue(_ fields: [String: JSONValue], _ tag: String) -> JSONValue? {
    fields["Composite:\(tag)"] ?? fields.first { $0.key.hasSuffix(":" + tag) }?.value
}

/// `2019:01:06 15:28:57…` or `2019-01-06T15:28:57…` → `2019-01-06T15:28:57`.
func secondOf(_ text: String) -> String {
    String(text.prefix(19)).enumerated().map { i, c in (i == 4 || i == 7) && c == ":" ? "-" : (i == 10 && c == " " ? "T" : c) }.map(String.init).joined()
}

@Suite("photos adapter against exiftool and the test node", .serialized)
struct PhotosTests {
    /// A sandbox whose `pics` adapter scans a freshly tagged library; returns exiftool's readings too.
    func librarySandbox(extraConfig: String = "") throws -> (AgentSandbox, String, [String: [String: JSONValue]]) {
        let agent = try AgentSandbox()
        let library = agent.root + "/library"
        let expected = try makeTaggedLibrary(library)
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(library)\n\(extraConfig)")
        return (agent, library, expected)
    }

    func dryRunItems(_ agent: AgentSandbox) throws -> [JSONValue] {
        let r = try agent.run(["run", "--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").compactMap { JSONValue.parse(Array($0.utf8)) }
    }

    @Test func everyFormatAgreesWithExiftool() throws {
        let (agent, library, expected) = try librarySandbox()
        let items = try dryRunItems(agent)
        var checked = Set<String>()
        for line in items {
            let item = try #require(line["item"])
            let name = try #require(item["file"]?["name"]?.stringValue)
            guard let want = expected[name] else { continue }
            let lat = try #require(exiftoolValue(want, "GPSLatitude")?.doubleValue, "exiftool has no latitude for \(name)")
            let lon = try #require(exiftoolValue(want, "GPSLongitude")?.doubleValue)
            #expect(abs((item["lat"]?.doubleValue ?? .nan) - lat) < 1e-6, "\(name) latitude")
            #expect(abs((item["lon"]?.doubleValue ?? .nan) - lon) < 1e-6, "\(name) longitude")
            if let dto = exiftoolValue(want, "DateTimeOriginal")?.stringValue {
                #expect(secondOf(item["taken_at"]?.stringValue ?? "") == secondOf(dto), "\(name) taken_at")
            }
            checked.insert(name)
        }
        let photoNames = Set(expected.keys.filter { !$0.hasSuffix(".xmp") })
        #expect(checked == photoNames, "photos the adapter did not report: \(photoNames.subtracting(checked).sorted())")
        #expect(Set(checked.map { String($0.split(separator: ".").last!) }).isSuperset(of: ["jpg", "heic", "avif", "png", "tif", "dng", "orf", "rw2", "webp"]))
        // Privacy: nothing of the path but the base name leaves the machine.
        #expect(!items.contains { String(decoding: $0.encoded, as: UTF8.self).contains(library) })
    }

    @Test func movingAndRenamingHalfTheLibraryAddsNothing_andTombstonesWaitForTheLastCopy() throws {
        let node = try TestNode()
        let (agent, library, _) = try librarySandbox()
        try agent.usePairedNode(node.url, token: node.token)
        #expect(try agent.run(["run"]).status == 0)
        let first = try node.items("photos")
        #expect(first.count >= 15)
        let acceptedBefore = try node.admin("counts")["endpoints"]?["photos"]?["accepted"]?.intValue

        // Move and rename every other photo into a new sub-folder.
        let fm = FileManager.default
        let names = try fm.contentsOfDirectory(atPath: library).filter { !$0.hasSuffix(".xmp") }.sorted()
        try fm.createDirectory(atPath: library + "/moved", withIntermediateDirectories: true)
        for (i, name) in names.enumerated() where i % 2 == 0 {
            try fm.moveItem(atPath: library + "/" + name, toPath: library + "/moved/renamed-\(i)-" + name)
        }
        #expect(try agent.run(["run"]).status == 0)
        let counts = try node.admin("counts")["endpoints"]?["photos"]
        #expect(counts?["accepted"]?.intValue == acceptedBefore, "a moved photo was sent as new or changed")
        #expect(counts?["live"]?.intValue == Int64(first.count), "a moved photo was tombstoned")

        // A copy of a photo: deleting the original keeps the item; deleting the last copy tombstones it.
        let moved = try fm.contentsOfDirectory(atPath: library + "/moved").sorted()[0]
        try fm.copyItem(atPath: library + "/moved/" + moved, toPath: library + "/copy-of-" + moved)
        try agent.run(["run"])
        try fm.removeItem(atPath: library + "/moved/" + moved)
        try agent.run(["run"])
        #expect(try node.admin("counts")["endpoints"]?["photos"]?["live"]?.intValue == Int64(first.count))
        try fm.removeItem(atPath: library + "/copy-of-" + moved)
        try agent.run(["run"])
        #expect(try node.admin("counts")["endpoints"]?["photos"]?["live"]?.intValue == Int64(first.count - 1))
    }

    @Test func anUnchangedRescanOpensNoPhoto() throws {
        let (agent, library, _) = try librarySandbox()
        try agent.run(["run"])
        let traced = try runProcess("/usr/bin/strace", ["-f", "-e", "trace=open,openat", "-o", agent.root + "/trace", agentBinary, "run"], env: agent.env)
        #expect(traced.status == 0, "\(traced.stderr)")
        let opens = try String(contentsOfFile: agent.root + "/trace", encoding: .utf8).split(separator: "\n").filter { $0.contains(library + "/") && !$0.contains("O_DIRECTORY") }
        #expect(opens.isEmpty, "re-scan opened: \(opens.prefix(3))")
        #expect(traced.stdout.contains("pics: 0 new or changed"))
    }

    /// A library restored from a backup, or synced by a tool that writes a copy and renames it:
    /// every file has a new inode and its old size and time, and is read as unchanged.
    @Test func aLibraryRestoredWithItsTimesOpensNoPhotoAndSendsNothing() throws {
        let (agent, library, _) = try librarySandbox()
        let node = try TestNode()
        try agent.usePairedNode(node.url, token: node.token)
        #expect(try agent.run(["run"]).status == 0)
        let requests = try node.requests().count
        let restored = try runProcess("/bin/bash", ["-c", "cp -a \"$0\" \"$0.restored\" && rm -rf \"$0\" && mv \"$0.restored\" \"$0\"", library])
        try #require(restored.status == 0, "\(restored.stderr)")
        let traced = try runProcess("/usr/bin/strace", ["-f", "-e", "trace=open,openat", "-o", agent.root + "/trace", agentBinary, "run"], env: agent.env)
        #expect(traced.status == 0, "\(traced.stderr)")
        let opens = try String(contentsOfFile: agent.root + "/trace", encoding: .utf8).split(separator: "\n").filter { $0.contains(library + "/") && !$0.contains("O_DIRECTORY") }
        #expect(opens.isEmpty, "the restored library's files were opened: \(opens.prefix(3))")
        #expect(try node.requests().count == requests, "nothing was sent again")
    }

    @Test func badFilesAreSkippedWithOneLineEachAndTheRunGoesOn() throws {
        let (agent, library, _) = try librarySandbox(extraConfig: "Exclude=*/excluded/*\n")
        let fm = FileManager.default
        #expect(fm.createFile(atPath: library + "/empty.jpg", contents: Data()))
        #expect(fm.createFile(atPath: library + "/notes.jpg", contents: Data("just some text, not a photo".utf8)))
        let whole = try Data(contentsOf: URL(fileURLWithPath: library + "/exif.jpg"))
        #expect(fm.createFile(atPath: library + "/cut.jpg", contents: whole.prefix(40)))
        try fm.createDirectory(atPath: library + "/excluded", withIntermediateDirectories: true)
        try fm.copyItem(atPath: library + "/exif.jpg", toPath: library + "/excluded/skip-me.jpg")
        let r = try agent.run(["run", "--dry-run"])
        #expect(r.status == 0)
        for bad in ["empty.jpg", "notes.jpg", "cut.jpg"] {
            let lines = r.stderr.split(separator: "\n").filter { $0.contains(library + "/" + bad) }
            #expect(lines.count == 1, "\(bad): \(lines)")
        }
        #expect(!r.stdout.contains("skip-me.jpg"))
        #expect(r.stdout.contains("exif.jpg"))
    }

    @Test func aSidecarsGPSWinsOverTheFile() throws {
        let (agent, library, _) = try librarySandbox()
        let fm = FileManager.default
        try fm.createDirectory(atPath: agent.root + "/edited", withIntermediateDirectories: true)
        try fm.copyItem(atPath: library + "/exif.jpg", toPath: agent.root + "/edited/a.jpg")
        // A darktable-style sidecar with a corrected position (degrees and decimal minutes).
        let sidecar = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
             <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/"
              exif:GPSLatitude="12,30.0N" exif:GPSLongitude="45,15.0W"/>
            </rdf:RDF></x:xmpmeta>
            """
        try sidecar.write(toFile: agent.root + "/edited/a.jpg.xmp", atomically: true, encoding: .utf8)
        try agent.write("adapters.d/pics.conf", "[Adapter]\nType=photos\nPath=\(agent.root)/edited\n")
        let item = try #require(try dryRunItems(agent).first?["item"])
        #expect(item["lat"]?.doubleValue == 12.5)
        #expect(item["lon"]?.doubleValue == -45.25)
    }
}
