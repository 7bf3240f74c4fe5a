@testable import Adapters

/// The listening-history reader: `SpotifyHistory` and the play rule (`ListenFile`) over any
/// input, whole and in 7-byte reads, so a row, a string or a number is cut at every place a
/// block can end; and a zip's entries through `ZipEntryStream.next`, as the adapter reads
/// my_spotify_data.zip.
enum ListeningHistoryHarness {
    static func run(_ bytes: [UInt8]) {
        for chunk in [Int.max, 7] { drain(ChunkedByteStream(bytes, chunk: chunk)) }
        guard let zip = try? ZipEntryStream(ChunkedByteStream(bytes, chunk: 5), wanted: { _ in true }) else { return }
        repeat { drain(zip) } while (try? zip.next(wanted: { _ in true })) == true
    }

    static func drain(_ stream: any ByteStream) {
        guard var history = try? SpotifyHistory(stream) else { return }
        var file = ListenFile(minPlayedMs: 30_000)
        while (try? file.read(&history, upTo: 64)) == true { file.items.removeAll() }
    }
}
