#if canImport(Glibc)
import Glibc
#endif

/// Every harness by target name; `fuzz/corpus/<name>/` holds each one's seeds.
/// One binary serves them all (HEARTHLOOM_FUZZ_TARGET picks one), so the project is built once.
let fuzzHarnesses: [String: @Sendable ([UInt8]) -> Void] = [
    "vcard": VCardHarness.run,
    "icalendar": ICalendarHarness.run,
    "ini": INIHarness.run,
    "jpeg": JPEGHarness.run,
    "tiff": TIFFHarness.run,
    "isobmff": ISOBMFFHarness.run,
    "quicktime": QuickTimeHarness.run,
    "png": PNGHarness.run,
    "webp": WebPHarness.run,
    "xmp": XMPHarness.run,
    "takeout-sidecar": TakeoutSidecarHarness.run,
    "health-xml": StartTagHarness.run,
    "json-scanner": JSONScannerHarness.run,
    "hae-json": HealthAutoExportJSONHarness.run,
    "hae-csv": HealthAutoExportCSVHarness.run,
    "fitbit-json": FitbitJSONHarness.run,
    "googlefit-json": GoogleFitJSONHarness.run,
    "column-csv": ColumnCSVHarness.run,
    "zip": ZipEntryHarness.run,
    "pairing-link": PairingLinkHarness.run,
    "node-reply": NodeReplyHarness.run,
    "gpsd-fixes": GPSDFixesHarness.run,
    "location-history": LocationHistoryHarness.run,
    "timeline-ios": TimelineArrayHarness.run,
    "timeline-edits": TimelineEditsHarness.run,
    "fit": FitnessHarness.fit,
    "kml": FitnessHarness.kml,
    "tcx": FitnessHarness.tcx,
    "listening-history": ListeningHistoryHarness.run,
    "dconf": DconfHarness.run,
    "pdf-image": PDFImageHarness.run,
]

/// The harness HEARTHLOOM_FUZZ_TARGET names, looked up on the first input; an unknown name
/// stops the process before any fuzzing, listing the known ones.
let selectedHarness: @Sendable ([UInt8]) -> Void = {
    let name = getenv("HEARTHLOOM_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let harness = fuzzHarnesses[name] else {
        let known = fuzzHarnesses.keys.sorted().joined(separator: " ")
        let message = "HEARTHLOOM_FUZZ_TARGET=\(name) is not a harness; known: \(known)\n"
        _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }      // stderr is a C global Swift 6 refuses
        exit(2)
    }
    return harness
}()

/// libFuzzer's entry point: one input, any bytes. A crash or sanitizer report is the finding;
/// errors the parsers throw are the expected outcome for garbage.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedHarness(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
