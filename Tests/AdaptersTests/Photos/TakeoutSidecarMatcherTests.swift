import Testing
@testable import Adapters

/// Which sidecar of a folder each media file gets. The cases are the names immich-go's
/// `matcher_test.go` and google-photos-takeout-helper's `json_extractor.dart` record from real
/// Takeouts, plus the `supplemental-metadata` forms of Takeouts since 2024.
@Suite struct TakeoutSidecarMatcherTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var sidecars: [String]
        var media: String
        var expected: String?
        var testDescription: String { "\(media) → \(expected ?? "none")" }
    }

    static let cases: [Case] = [
        // The plain forms.
        Case(sidecars: ["PXL_20211013_220651983.jpg.json"], media: "PXL_20211013_220651983.jpg", expected: "PXL_20211013_220651983.jpg.json"),
        Case(sidecars: ["PXL_20211013_220651983.jpg.json"], media: "PXL_20211013_220651958.jpg", expected: nil),
        Case(sidecars: ["IMG_1234.jpg.supplemental-metadata.json"], media: "IMG_1234.jpg", expected: "IMG_1234.jpg.supplemental-metadata.json"),
        Case(sidecars: ["DSC_0100.JPG.json"], media: "DSC_0100.JPG", expected: "DSC_0100.JPG.json"),
        Case(sidecars: ["PXL_20231118_035751175.MP.jpg.json"], media: "PXL_20231118_035751175.MP.jpg", expected: "PXL_20231118_035751175.MP.jpg.json"),
        Case(sidecars: ["PXL_20210102_221126856.MP~2.jpg.json"], media: "PXL_20210102_221126856.MP~2.jpg", expected: "PXL_20210102_221126856.MP~2.jpg.json"),
        // Videos are matched the same way, by name.
        Case(sidecars: ["VID_20200930_155021.mp4.supplemental-metadata.json"], media: "VID_20200930_155021.mp4",
             expected: "VID_20200930_155021.mp4.supplemental-metadata.json"),
        Case(sidecars: ["IMG_0420.MOV.json", "IMG_0420.HEIC.json"], media: "IMG_0420.MOV", expected: "IMG_0420.MOV.json"),
        // The supplemental-metadata suffix cut anywhere, down to the bare dot.
        Case(sidecars: ["IMG_1234.jpg.supplemental-metad.json"], media: "IMG_1234.jpg", expected: "IMG_1234.jpg.supplemental-metad.json"),
        Case(sidecars: ["IMG_1234.jpg.suppl.json"], media: "IMG_1234.jpg", expected: "IMG_1234.jpg.suppl.json"),
        Case(sidecars: ["IMG_1234.jpg.s.json"], media: "IMG_1234.jpg", expected: "IMG_1234.jpg.s.json"),
        Case(sidecars: ["photo.jpg..json"], media: "photo.jpg", expected: "photo.jpg..json"),
        Case(sidecars: ["IMG_1234.jpg.suppl.json"], media: "IMG_1235.jpg", expected: nil),
        // Names cut at 46 UTF-16 units, into the media extension or the name itself.
        Case(sidecars: ["PXL_20230809_203449253.LONG_EXPOSURE-02.ORIGIN.json"], media: "PXL_20230809_203449253.LONG_EXPOSURE-02.ORIGINA.jpg",
             expected: "PXL_20230809_203449253.LONG_EXPOSURE-02.ORIGIN.json"),
        Case(sidecars: ["05yqt21kruxwwlhhgrwrdyb6chhwszi9bqmzu16w0 2.jp.json"], media: "05yqt21kruxwwlhhgrwrdyb6chhwszi9bqmzu16w0 2.jpg",
             expected: "05yqt21kruxwwlhhgrwrdyb6chhwszi9bqmzu16w0 2.jp.json"),
        Case(sidecars: ["😀😃😄😁😆😅😂🤣🥲☺️😊😇🙂🙃😉😌😍🥰😘😗😙😚😋.json"], media: "😀😃😄😁😆😅😂🤣🥲☺️😊😇🙂🙃😉😌😍🥰😘😗😙😚😋😛.jpg",
             expected: "😀😃😄😁😆😅😂🤣🥲☺️😊😇🙂🙃😉😌😍🥰😘😗😙😚😋.json"),
        Case(sidecars: ["Screenshot_20190306-101500_Maps and Navigation.json"], media: "Screenshot_20190306-101500_Maps and Navigation.jpg",
             expected: "Screenshot_20190306-101500_Maps and Navigation.json"),
        Case(sidecars: ["Screenshot_20190306-101500_Maps.jpg.supplemen.json"], media: "Screenshot_20190306-101500_Maps.jpg",
             expected: "Screenshot_20190306-101500_Maps.jpg.supplemen.json"),
        // A 51-unit cut.
        Case(sidecars: ["A_very_long_title_written_by_some_app_on_the_phone_.json"], media: "A_very_long_title_written_by_some_app_on_the_phone_x.jpg",
             expected: "A_very_long_title_written_by_some_app_on_the_phone_.json"),
        // A short name that is only a prefix is not a cut one.
        Case(sidecars: ["IMG_1.json"], media: "IMG_12.jpg", expected: nil),
        // Duplicate numbers moved behind the name.
        Case(sidecars: ["DSC_0101.JPG(1).json"], media: "DSC_0101(1).JPG", expected: "DSC_0101.JPG(1).json"),
        Case(sidecars: ["DSC_0102.JPG(2).json"], media: "DSC_0102(1).JPG", expected: nil),
        Case(sidecars: ["DSC_0103.JPG(1).json"], media: "DSC_0103.JPG", expected: nil),
        Case(sidecars: ["DSC_0104.JPG.json"], media: "DSC_0104(1).JPG", expected: nil),
        Case(sidecars: ["IMG_2710.HEIC(1).json"], media: "IMG_2710(1).HEIC", expected: "IMG_2710.HEIC(1).json"),
        Case(sidecars: ["IMG_1234.jpg.json", "IMG_1234.jpg(1).json"], media: "IMG_1234(1).jpg", expected: "IMG_1234.jpg(1).json"),
        Case(sidecars: ["IMG_1234.jpg.json", "IMG_1234.jpg(1).json"], media: "IMG_1234.jpg", expected: "IMG_1234.jpg.json"),
        Case(sidecars: ["IMG_2000.jpg.supplemental-metadata(1).json"], media: "IMG_2000(1).jpg", expected: "IMG_2000.jpg.supplemental-metadata(1).json"),
        Case(sidecars: ["13039_327707840323_537645323_9470255_27214_n.j(1).json"], media: "13039_327707840323_537645323_9470255_27214_n(1).jpg",
             expected: "13039_327707840323_537645323_9470255_27214_n.j(1).json"),
        Case(sidecars: ["Backyard_ceremony_wedding_photography_xxxxxxx_(494).json"], media: "Backyard_ceremony_wedding_photography_xxxxxxx_m(494).jpg",
             expected: "Backyard_ceremony_wedding_photography_xxxxxxx_(494).json"),
        Case(sidecars: ["Backyard_ceremony_wedding_photography_xxxxxxx_(494).json"], media: "Backyard_ceremony_wedding_photography_xxxxxxx_m(185).jpg",
             expected: nil),
        // A cut name that lost the duplicate's number serves both.
        Case(sidecars: ["original_1d4caa6f-16c6-4c3d-901b-9387de10e528_.json"], media: "original_1d4caa6f-16c6-4c3d-901b-9387de10e528_P.jpg",
             expected: "original_1d4caa6f-16c6-4c3d-901b-9387de10e528_.json"),
        Case(sidecars: ["original_1d4caa6f-16c6-4c3d-901b-9387de10e528_.json"], media: "original_1d4caa6f-16c6-4c3d-901b-9387de10e528_P(1).jpg",
             expected: "original_1d4caa6f-16c6-4c3d-901b-9387de10e528_.json"),
        // Edited copies, in English and localized, share the original's sidecar.
        Case(sidecars: ["IMG_3000.jpg.json"], media: "IMG_3000-edited.jpg", expected: "IMG_3000.jpg.json"),
        Case(sidecars: ["IMG_3000.jpg.supplemental-metadata.json"], media: "IMG_3000-EDITED.jpg", expected: "IMG_3000.jpg.supplemental-metadata.json"),
        Case(sidecars: ["PXL_20220405_090123740.PORTRAIT.jpg.json"], media: "PXL_20220405_090123740.PORTRAIT-modifié.jpg",
             expected: "PXL_20220405_090123740.PORTRAIT.jpg.json"),
        Case(sidecars: ["PXL_20220405_090123740.PORTRAIT.jpg.json"], media: "PXL_20220405_090123741.PORTRAIT-modifié.jpg", expected: nil),
        Case(sidecars: ["IMG_3001.jpg.json"], media: "IMG_3001-bearbeitet.jpg", expected: "IMG_3001.jpg.json"),
        Case(sidecars: ["IMG_3002.jpg.json"], media: "IMG_3002-編集済み.jpg", expected: "IMG_3002.jpg.json"),
        Case(sidecars: ["IMG_3003.jpg(1).json"], media: "IMG_3003-edited(1).jpg", expected: "IMG_3003.jpg(1).json"),
        Case(sidecars: ["-edited.jpg.json"], media: "-edited.jpg", expected: "-edited.jpg.json"),
        // Decomposed accents (a Mac's copy) match their composed form.
        Case(sidecars: ["Cafe\u{301}.jpg.json"], media: "Caf\u{E9}.jpg", expected: "Cafe\u{301}.jpg.json"),
        // A title uploaded without extension.
        Case(sidecars: ["IMG_7000.json"], media: "IMG_7000.jpg", expected: "IMG_7000.json"),
        // An album's metadata.json is no photo's.
        Case(sidecars: ["metadata.json"], media: "IMG_0001.jpg", expected: nil),
    ]

    @Test(arguments: cases) func matches(_ c: Case) {
        #expect(TakeoutSidecarMatcher(sidecarNames: c.sidecars).sidecar(for: c.media) == c.expected)
    }

    @Test func sidecarsAreToldByTheirNamesEnd() {
        #expect(TakeoutSidecarMatcher.isSidecar("a.json"))
        #expect(TakeoutSidecarMatcher.isSidecar("IMG_1.jpg.JSON"))
        #expect(!TakeoutSidecarMatcher.isSidecar(".json"))
        #expect(!TakeoutSidecarMatcher.isSidecar("a.jsonl"))
        #expect(!TakeoutSidecarMatcher.isSidecar("IMG_1.jpg"))
    }

    @Test func editedSuffixesComeOff() {
        #expect(TakeoutSidecarMatcher.original(ofEdited: "IMG_1-edited.jpg") == "IMG_1.jpg")
        #expect(TakeoutSidecarMatcher.original(ofEdited: "IMG_1-ha editado.jpg") == "IMG_1.jpg")
        #expect(TakeoutSidecarMatcher.original(ofEdited: "IMG_1.jpg") == nil)
    }
}
