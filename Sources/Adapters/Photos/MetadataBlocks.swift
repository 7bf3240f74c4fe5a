/// Where one container keeps its metadata, found by the container walker and decoded later.
///
/// Separating "find" from "decode" lets every container share the TIFF and XMP decoders
/// and the rule for combining them: Exif wins, embedded XMP only fills gaps, because
/// cameras write Exif and later tools may leave stale or partial XMP behind.
struct MetadataBlocks {
    /// The TIFF-structured Exif data, its header at offset 0.
    var exif: (any ByteSource)?
    /// The XMP packet bytes.
    var xmp: [UInt8]?

    func metadata() throws(PhotoReadError) -> PhotoMetadata {
        var metadata = PhotoMetadata()
        if let exif { metadata = try TIFFReader.metadata(from: exif) }
        if let xmp { metadata = metadata.fillingGaps(from: XMPReader.metadata(from: xmp)) }
        return metadata
    }
}
