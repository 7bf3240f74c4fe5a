import Testing
@testable import Adapters

/// Which still and movie are one Live Photo: identifiers first, else name and time (Immich 14459).
@Suite struct LivePhotoTests {
    static func facts(video: Bool, id: String? = nil, utc: Bool = true, ms: Int64? = 0) -> LivePhoto.Facts {
        LivePhoto.Facts(isVideo: video, contentIdentifier: id, capture: ms.map { (utc, $0) })
    }

    @Test(arguments: [
        ("same identifier, other names", facts(video: false, id: "A"), "holiday.jpg", facts(video: true, id: "A", ms: 9_999_999), "clip.mov", true),
        ("other identifiers, same name and time", facts(video: false, id: "A"), "IMG_1.JPG", facts(video: true, id: "B"), "IMG_1.MOV", false),
        ("no identifiers, same name, 2 s apart", facts(video: false), "IMG_1.HEIC", facts(video: true, ms: 2000), "IMG_1.MOV", true),
        ("one identifier missing, same name, 1 s apart", facts(video: false, id: "A"), "IMG_1.JPG", facts(video: true, ms: -1000), "IMG_1.mov", true),
        ("same name, days apart", facts(video: false), "IMG_1.JPG", facts(video: true, ms: 3 * 86_400_000), "IMG_1.MOV", false),
        ("same name, 2.001 s apart", facts(video: false), "IMG_1.JPG", facts(video: true, ms: 2001), "IMG_1.MOV", false),
        ("same name, an MP4", facts(video: false), "IMG_1.JPG", facts(video: true), "IMG_1.MP4", false),
        ("same name, one time with its zone unknown", facts(video: false, utc: false), "IMG_1.JPG", facts(video: true), "IMG_1.MOV", false),
        ("same name, no time", facts(video: false, ms: nil), "IMG_1.JPG", facts(video: true, ms: nil), "IMG_1.MOV", false),
        ("two movies", facts(video: true, id: "A"), "a.mov", facts(video: true, id: "A"), "b.mov", false),
    ])
    func pairing(_ what: String, still: LivePhoto.Facts, stillName: String, video: LivePhoto.Facts, videoName: String, pairs: Bool) {
        #expect(LivePhoto.pairs(still: still, named: stillName, video: video, named: videoName) == pairs, "\(what)")
    }

    @Test func factsRoundTripThroughTheAnchorText() {
        for facts in [Self.facts(video: true, id: "x y\t%", ms: -5), Self.facts(video: false, utc: false, ms: 17), Self.facts(video: false, ms: nil)] {
            var line: [UInt8] = []
            facts.write(into: &line)
            #expect(!line.contains(0x09))
            #expect(LivePhoto.Facts(encoded: AnchorText.unescape(String(decoding: line, as: UTF8.self))) == facts)
        }
    }
}
