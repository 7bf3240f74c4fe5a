import FoundationEssentials
import IngestCore

/// Human and JSON renderings of what commands did.
enum Output {
    static func printPass(results: [Agent.ScanResult], report: DrainReport, node: String, json: Bool) {
        if json {
            var out: [String: JSONValue] = [
                "node": .string(node),
                "adapters": .array(results.map { r in
                    .object(["name": .string(r.adapter), "type": .string(r.type), "queued": .int(Int64(r.queued)),
                             "warnings": .int(Int64(r.warnings)), "error": JSONValue(r.error)])
                }),
                "delivered": .object(Dictionary(uniqueKeysWithValues: report.delivered.map { ($0.key.rawValue, JSONValue.int(Int64($0.value))) })),
                "accepted": .int(Int64(report.accepted)), "duplicates": .int(Int64(report.duplicates)),
                "dead_lettered": .int(Int64(report.deadLettered)),
                "parked": .object(Dictionary(uniqueKeysWithValues: report.parked.map { ($0.key.rawValue, JSONValue.string($0.value)) })),
                "locked_elsewhere": .bool(report.lockedElsewhere),
                "exit_code": .int(Int64(report.exitCode.rawValue)),
            ]
            out["stop"] = report.stop.map { .string(describe($0)) } ?? .null
            Terminal.writeStdout(String(decoding: JSONValue.object(out).encoded, as: UTF8.self) + "\n")
            return
        }
        var lines: [String] = []
        for r in results {
            var line = "\(r.adapter): \(r.queued) new or changed"
            if r.warnings > 0 { line += ", \(r.warnings) warnings" }
            if let e = r.error { line += "; failed: \(e)" }
            lines.append(line)
        }
        var sent = "sent \(report.deliveredTotal) to \(node) (\(report.accepted) accepted, \(report.duplicates) duplicates)"
        if report.deadLettered > 0 { sent += ", \(report.deadLettered) dead-lettered" }
        if report.lockedElsewhere { sent += "; another process is sending" }
        lines.append(sent)
        for (endpoint, reason) in report.parked.sorted(by: { $0.key < $1.key }) { lines.append("kept \(endpoint.rawValue): \(reason)") }
        if let stop = report.stop { lines.append("stopped: \(describe(stop))") }
        Terminal.writeStdout(lines.joined(separator: "\n") + "\n")
    }

    static func describe(_ stop: DrainReport.Stop) -> String {
        switch stop {
        case .unauthorized: "the node refused the device token (401); pair again; everything is kept"
        case .unreachable(let m): "node unreachable (\(m)); everything is kept"
        case .untrusted(let m): "the node's TLS certificate is not trusted (\(m)); everything is kept"
        case .busyUntil(let d): "the node is busy until \(d.rfc3339); everything is kept"
        case .deferredUntil(let d): "not sending before \(d.rfc3339), as the node asked"
        case .storeFailed(let m): m
        }
    }

    static func statusTable(_ r: StatusReport) -> String {
        var out = "Node:     \(r.node)\n"
        out += "Paired:   " + (r.paired ? "yes; captures use " + (r.captureKey ? "a capture-only key" : "the device token") : "no (items go to the embedded local node; `hearthloom-ingest pair` to send to yours)") + "\n"
        out += "Device:   \(r.device)\n"
        if let t = r.retryNotBefore { out += "Waiting:  the node asked for no requests before \(t.rfc3339)\n" }
        out += "\nAdapters:\n"
        if r.adapters.isEmpty { out += "  (none configured: add files to adapters.d/, see `hearthloom-ingest adapters`)\n" }
        else {
            let header = ["NAME", "TYPE", "ENABLED", "LAST SYNCED", "SYNCED", "QUEUED", "ANCHOR", "LAST ERROR"]
            var rows = [header]
            for a in r.adapters {
                rows.append([a.name, a.type, a.enabled ? "yes" : "no", a.lastSynced.map(shortDate) ?? "never", String(a.syncedCount),
                             String(a.queued), a.anchorEntries > 0 ? "\(a.anchorEntries) entries" : "-", a.configError ?? a.lastError ?? "-"])
            }
            out += table(rows)
        }
        out += "\nOutbox:   " + counts(r.outbox, empty: "empty") + queueLimit(r) + "\n"
        for (e, note) in r.notes.sorted(by: { $0.key < $1.key }) { out += "          \(e.rawValue): \(note)\n" }
        out += "Dead letters: " + counts(r.deadLetters, empty: "none") + "\n"
        for d in r.recentDeadLetters { out += "          \(d.endpoint) \(d.key.prefix(60)): \(d.error)\n" }
        if let holdings = r.localNode {
            out += "\nEmbedded local node holds: "
            out += holdings.isEmpty ? "nothing yet\n"
                : holdings.map { "\($0.endpoint) \($0.live)" + ($0.deleted > 0 ? " (+\($0.deleted) deleted)" : "") }.joined(separator: ", ") + "\n"
        }
        return out
    }

    /// ` (1 MiB of MaxQueue=1 GiB)`, and a warning from three quarters of `MaxQueue=` on.
    static func queueLimit(_ r: StatusReport) -> String {
        guard !r.outbox.isEmpty else { return "" }
        let held = "\(OutboxFull.text(r.outboxBytes)) of MaxQueue=\(r.maxQueue == Int64.max ? "infinity" : OutboxFull.text(r.maxQueue))"
        return OutboxBudget.isNearlyFull(held: r.outboxBytes, limit: r.maxQueue)
            ? "; nearly full (\(held)): file adapters stop before passing it until the node takes what is queued" : " (\(held))"
    }

    static func counts(_ m: [Endpoint: Int], empty: String) -> String { m.summary(empty: empty) }

    static func shortDate(_ d: Date) -> String { String(d.rfc3339.prefix(19)).replacingT() + "Z" }

    static func table(_ rows: [[String]]) -> String {
        var widths = [Int](repeating: 0, count: rows[0].count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            "  " + row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell.padding(widths[i]) }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

extension String {
    func replacingT() -> String { String(map { $0 == "T" ? " " : $0 }) }
}
