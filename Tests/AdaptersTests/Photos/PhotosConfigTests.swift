import Foundation
import Testing
@testable import Adapters

struct PhotosConfigTests {
    @Test func keysDoNotDependOnTheFileOrItsName() {
        let meta = PhotoMetadata(latitude: 52.5, longitude: 13.4, dateTimeOriginal: LocalDateTime(year: 2024, month: 5, day: 1, hour: 12, minute: 0, second: 3),
                                 subSecond: "25", offset: "+02:00", make: "Canon", model: "EOS R6")
        let a = PhotoItem.make(meta, fileName: "IMG_1.JPG", size: 100)
        let b = PhotoItem.make(meta, fileName: "holiday.jpg", size: 100)
        #expect(a?.key == b?.key)
        #expect(a?.version == b?.version, "a renamed copy must be a duplicate, not an update")
        #expect(a?.fields["taken_at"] == "2024-05-01T12:00:03.25+02:00")
        var floating = meta
        floating.offset = nil
        #expect(PhotoItem.make(floating, fileName: "x", size: 1)?.fields["time_floating"] == true)
        var noGPS = meta
        noGPS.latitude = nil
        #expect(PhotoItem.make(noGPS, fileName: "x", size: 1) == nil)
    }

    @Test func localTimesPrintAsISO8601WithTheFractionTrimmed() {
        #expect(LocalDateTime(year: 987, month: 1, day: 2, hour: 3, minute: 4, second: 5).description == "0987-01-02T03:04:05")
        #expect(LocalDateTime(year: 2024, month: 12, day: 31, hour: 23, minute: 59, second: 59, nanosecond: 120_000_000).description
                == "2024-12-31T23:59:59.12")
        #expect(LocalDateTime(year: 2024, month: 1, day: 1, hour: 0, minute: 0, second: 0, nanosecond: 5).description == "2024-01-01T00:00:00.000000005")
    }

    @Test func folderAnchorsKeepTheirTextFormat() {
        var anchor = FolderAnchor(digest: "abc")
        anchor.records["b\tname.jpg"] = .init(stamp: FileStamp(size: 1234, mtime: -5, inode: UInt64.max), sidecar: "", key: nil)
        anchor.records["a.jpg"] = .init(stamp: FileStamp(size: 0, mtime: 1_717_225_200_123_456_789, inode: 42), sidecar: "10:20", key: "photo:k",
                                        pairing: LivePhoto.Facts(isVideo: false, contentIdentifier: "ID 1\t%", capture: (true, -1500)))
        anchor.records["c.mov"] = .init(stamp: FileStamp(size: 1, mtime: 2, inode: 3), sidecar: "", key: nil,
                                        pairing: LivePhoto.Facts(isVideo: true, contentIdentifier: nil, capture: nil))
        #expect(String(decoding: anchor.encoded, as: UTF8.self)
                == "v1 abc\na.jpg\t0\t1717225200123456789\t42\t10:20\tphoto:k\tsu-1500 ID 1%09%25\nb%09name.jpg\t1234\t-5\t18446744073709551615\t-\t-\t-\n"
                   + "c.mov\t1\t2\t3\t-\t-\tv- \n")
        #expect(FolderAnchor(anchor.encoded)?.records == anchor.records)
    }

    /// A record written before videos were read has no pairing facts: its file is read again when its folder changes.
    @Test func folderAnchorsOfTheEarlierLayoutStillDecode() {
        let old = FolderAnchor(Data("v1 abc\na.jpg\t0\t17\t42\t-\tphoto:k\n".utf8))
        #expect(old?.records["a.jpg"] == .init(stamp: FileStamp(size: 0, mtime: 17, inode: 42), sidecar: "", key: "photo:k", pairing: nil))
    }
}
