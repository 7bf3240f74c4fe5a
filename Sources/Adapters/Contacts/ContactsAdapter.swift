import FoundationEssentials
import IngestCore

/// `Type=contacts`: vCard 2.1, 3.0 and 4.0 address books, from .vcf files and vdir folders
/// (vdirsyncer's `contacts/<collection>/` trees included).
///
/// ``TrackedFiles`` keeps each file's stat, content hash and the key and version of every card
/// it gave, so an unchanged run opens no file, an edited file queues only the cards that changed,
/// and a card gone from every file is sent once as a tombstone.
public struct ContactsAdapter: DeviceAdapter {
    public static let type = "contacts"
    public static let summary = "vCard 2.1/3.0/4.0 address books: .vcf files and vdir folders (vdirsyncer, khard)"
    enum Key {
        static let path = ConfigKey("Path", repeated: .path,
                                    "a .vcf file, or a folder scanned recursively for .vcf files (a vdir or a tree of them)")
        static let exclude = ConfigKey("Exclude", repeated: .string, "a glob over the whole path to leave out")
    }
    public static let configKeys: [any ConfigKeyProtocol] = [Key.path, Key.exclude]
    public static let sampleConfig = String(decoding: PackageResources.contacts_conf, as: UTF8.self)

    let files: TrackedFiles

    public init(config: AdapterConfig) throws(ConfigError) {
        let roots = try config.section.value(Key.path, where: { !$0.isEmpty }, else: { _ in "missing; name at least one .vcf file or folder" })
        files = TrackedFiles(roots: roots, excludes: config.section[Key.exclude], accepts: ContactsAdapter.isVCardFile)
    }

    public var watchedPaths: [String] { files.roots }

    /// `doctor`: every `Path=` exists and may be read.
    public func doctorChecks() async -> [DoctorCheck] { DoctorCheck.paths(watchedPaths) }

    public func scan(since anchor: Anchor, into sink: some ItemSink) async throws {
        try await files.scan(since: anchor, into: sink, parse: ContactsAdapter.parse)
    }

    /// One file's cards as items. A file with no card at all, or none that could be read, fails
    /// as a whole, so what it gave before is kept rather than tombstoned.
    static func parse(_ path: String, _ bytes: [UInt8]) -> TrackedFiles.Parse {
        let result = VCardParser.parse(bytes)
        guard result.cards > 0 else { return .failed("no BEGIN:VCARD in this file; not a vCard file") }
        guard !result.contacts.isEmpty else { return .failed(result.problems.joined(separator: "; ")) }
        return .parsed(TrackedFiles.FileItems(result.contacts.map(\.item)), warnings: result.problems, refreshAfter: nil)
    }

    /// `.vcf` or `.vcard`, any case, by the name's bytes: it runs for every file of every re-scan.
    static func isVCardFile(_ name: String) -> Bool {
        var utf8 = Substring(name).utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")), dot != utf8.startIndex else { return false }
        utf8 = utf8[utf8.index(after: dot)...]
        return VCardText.equalsIgnoringCase(ArraySlice(utf8), vcf) || VCardText.equalsIgnoringCase(ArraySlice(utf8), vcard)
    }
    private static let vcf = Array("VCF".utf8), vcard = Array("VCARD".utf8)
}
