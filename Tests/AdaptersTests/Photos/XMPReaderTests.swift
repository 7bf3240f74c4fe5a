import Testing
@testable import Adapters

/// The XMP spellings that different writers (Lightroom, darktable, digiKam, phones) use.
@Suite struct XMPReaderTests {
    private func read(_ xml: String) -> PhotoMetadata {
        XMPReader.metadata(from: Array(xml.utf8))
    }

    private func packet(_ body: String) -> String {
        """
        <?xpacket begin='\u{FEFF}' id='W5M0MpCehiHzreSzNTczkc9d'?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          \(body)
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end='w'?>
        """
    }

    @Test("attributes with single or double quotes and spaces around '='")
    func attributes() {
        let metadata = read(packet("""
            <rdf:Description rdf:about=""
                xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
                exif:GPSLatitude = '48,51.4N'
                exif:GPSLongitude="2,21.1W"
                exif:GPSAltitude="1234/10" exif:GPSAltitudeRef="1"
                exif:GPSHPositioningError="15/2"
                tiff:Make="Fujifilm &amp; Co" tiff:Model='X&#45;T5 &#x2014; &quot;silver&quot;'/>
            """))
        #expect(abs(metadata.latitude! - (48 + 51.4 / 60)) < 1e-12)
        #expect(abs(metadata.longitude! + (2 + 21.1 / 60)) < 1e-12)
        #expect(metadata.altitudeM == -123.4)
        #expect(metadata.horizontalErrorM == 7.5)
        #expect(metadata.make == "Fujifilm & Co")
        #expect(metadata.model == "X-T5 — \"silver\"")
    }

    @Test("elements, rdf:Alt values, other prefixes and DD,MM,SS coordinates")
    func elements() {
        let metadata = read(packet("""
            <rdf:Description rdf:about="" xmlns:e="http://ns.adobe.com/exif/1.0/" xmlns:t="http://ns.adobe.com/tiff/1.0/"
                xmlns:aux="http://ns.adobe.com/exif/1.0/aux/">
              <e:GPSLatitude>
                 33,51,54.3S
              </e:GPSLatitude>
              <e:GPSLongitude>151,12,33.48E</e:GPSLongitude>
              <!-- <e:GPSAltitude>999/1</e:GPSAltitude> commented out -->
              <e:GPSAltitude><![CDATA[58/1]]></e:GPSAltitude>
              <t:Make><rdf:Alt><rdf:li xml:lang="x-default">Canon</rdf:li></rdf:Alt></t:Make>
              <t:Model/>
              <aux:SerialNumber>0123</aux:SerialNumber>
              <e:ImageUniqueID>F00D</e:ImageUniqueID>
            </rdf:Description>
            """))
        #expect(abs(metadata.latitude! + (33 + 51.0 / 60 + 54.3 / 3600)) < 1e-12)
        #expect(abs(metadata.longitude! - (151 + 12.0 / 60 + 33.48 / 3600)) < 1e-12)
        #expect(metadata.altitudeM == 58)
        #expect(metadata.make == "Canon")
        #expect(metadata.model == nil)
        #expect(metadata.cameraSerial == "0123")
        #expect(metadata.imageUniqueID == "F00D")
    }

    @Test("DateTimeOriginal wins over photoshop:DateCreated and xmp:CreateDate; fraction and offset are kept")
    func dates() {
        let all = read(packet("""
            <rdf:Description xmp:CreateDate="2001-01-01T01:01:01" photoshop:DateCreated="2002-02-02T02:02:02"
                exif:DateTimeOriginal="2021-03-04T05:06:07.250+05:30"/>
            """))
        #expect(all.dateTimeOriginal == LocalDateTime(year: 2021, month: 3, day: 4, hour: 5, minute: 6, second: 7))
        #expect(all.subSecond == "250")
        #expect(all.offset == "+05:30")

        let created = read(packet("<rdf:Description xmp:CreateDate='2001-01-01T01:01:01Z' photoshop:DateCreated='2002-02-02T02:02'/>"))
        #expect(created.dateTimeOriginal == LocalDateTime(year: 2002, month: 2, day: 2, hour: 2, minute: 2, second: 0))
        #expect(created.offset == nil)

        let createOnly = read(packet("<rdf:Description><xmp:CreateDate>2001-01-01T01:01:01Z</xmp:CreateDate></rdf:Description>"))
        #expect(createOnly.offset == "+00:00")
    }

    @Test("GPSTimeStamp with an offset is converted to UTC across the date line")
    func gpsTimestamp() {
        let metadata = read(packet("<rdf:Description exif:GPSTimeStamp='2021-01-01T01:30:00.5+02:00'/>"))
        #expect(metadata.gpsTimestampUTC == LocalDateTime(year: 2020, month: 12, day: 31, hour: 23, minute: 30, second: 0, nanosecond: 500_000_000))
    }

    @Test("unusable values are dropped", arguments: [
        "exif:GPSLatitude='91,0N' exif:GPSLongitude='10,0E'",
        "exif:GPSLatitude='0,0N' exif:GPSLongitude='0,0E'",
        "exif:GPSLatitude='10,0X' exif:GPSLongitude='10,0E'",
        "exif:GPSLatitude='10,0N'",
        "exif:GPSLatitude='nan' exif:GPSLongitude='10,0E'",
        "exif:GPSAltitude='5/0' exif:DateTimeOriginal='2021-02-29T00:00:00'",
    ])
    func dropped(attributes: String) {
        let metadata = read(packet("<rdf:Description \(attributes)/>"))
        #expect(metadata == PhotoMetadata())
    }

    @Test("signed decimal coordinates from writers that ignore the XMP format")
    func signedDecimal() {
        let metadata = read(packet("<rdf:Description exif:GPSLatitude='-12.5' exif:GPSLongitude=' 130.25 '/>"))
        #expect(metadata.latitude == -12.5)
        #expect(metadata.longitude == 130.25)
    }

    @Test("a packet without extension is recognised by content, a sidecar by extension")
    func sniffing() throws {
        let scratch = try ScratchDirectory()
        let xml = packet("<rdf:Description exif:GPSLatitude='1,30N' exif:GPSLongitude='2,30E'/>")
        for name in ["IMG_0001.XMP", "IMG_0001"] {
            let (metadata, format, bytesRead) = try PhotoGeotagReader.read(path: try scratch.write(Array(xml.utf8), as: name))
            #expect(format == .xmp)
            #expect(metadata.latitude == 1.5)
            #expect(bytesRead == xml.utf8.count)
        }
    }
}

/// Date, offset and merge rules shared by every format.
@Suite struct MetadataRuleTests {
    @Test("date strings", arguments: [
        ("2021:03:04 05:06:07", "2021-03-04T05:06:07"),
        ("2021-03-04T05:06:07", "2021-03-04T05:06:07"),
        ("2024:02:29 23:59:59", "2024-02-29T23:59:59"),
        ("2023:02:29 00:00:00", "nil"),
        ("2021:13:01 00:00:00", "nil"),
        ("2021:03:04 24:00:00", "nil"),
        ("    :  :     :  :  ", "nil"),
        ("2021:03:04", "nil"),
        ("2021:03:04 05:06:07 junk", "nil"),
    ])
    func dateParsing(text: String, expected: String) {
        #expect(DateTimeText.parse(text).map { $0.dateTime.description } ?? "nil" == expected)
    }

    @Test("offsets", arguments: [("+02:00", "+02:00"), ("+0530", "+05:30"), ("-03", "-03:00"), ("Z", "+00:00"),
                                 ("   :  ", "nil"), ("+25:00", "nil"), ("+02:61", "nil")])
    func offsets(text: String, expected: String) {
        #expect(DateTimeText.offset(text) ?? "nil" == expected)
    }

    @Test("UTC shifting carries across month and leap-year boundaries")
    func shifting() {
        let start = LocalDateTime(year: 2024, month: 2, day: 28, hour: 23, minute: 0, second: 0)
        #expect(start.shifted(bySeconds: 3600).description == "2024-02-29T00:00:00")
        #expect(start.shifted(bySeconds: 3600 + 86_400).description == "2024-03-01T00:00:00")
        let newYear = LocalDateTime(year: 2000, month: 1, day: 1, hour: 0, minute: 30, second: 0)
        #expect(newYear.shifted(bySeconds: -3600).description == "1999-12-31T23:30:00")
    }

    @Test("sidecar GPS wins, other sidecar fields only fill gaps")
    func merge() {
        let date = LocalDateTime(year: 2020, month: 1, day: 1, hour: 0, minute: 0, second: 0)
        let file = PhotoMetadata(latitude: 1, longitude: 2, altitudeM: 3, horizontalErrorM: 4, dateTimeOriginal: date,
                                 make: "Camera", model: nil)
        let sidecar = PhotoMetadata(latitude: 10, longitude: 20, dateTimeOriginal: LocalDateTime(year: 1999, month: 1, day: 1, hour: 0, minute: 0, second: 0),
                                    offset: "+01:00", make: "Other", model: "Model")
        let merged = PhotoGeotagReader.merge(file: file, sidecar: sidecar)
        #expect(merged == PhotoMetadata(latitude: 10, longitude: 20, altitudeM: 3, horizontalErrorM: 4, dateTimeOriginal: date,
                                        offset: "+01:00", make: "Camera", model: "Model"))
        #expect(PhotoGeotagReader.merge(file: file, sidecar: PhotoMetadata()) == file)
        #expect(PhotoGeotagReader.merge(file: PhotoMetadata(), sidecar: sidecar) == sidecar)
    }
}
