import Foundation
import RalphAPI
import RalphMobileKit

/// How sessions, events and states look in the terminal.
struct Format {
    let theme: Theme

    /// One event on one line: `14:02:03  #42  i3  builder  build.done  payload…`, cut to `width` columns.
    func event(_ event: WorkflowEvent, width: Int) -> String {
        let head = "\(theme.dim(Text.clock(event.ts)))  \(theme.dim(Text.pad("#\(event.id)", 5)))  \(Text.pad(event.iteration.map { "i\($0)" } ?? "", 4))  "
        let hat = Text.pad(theme.hat(event.hat), 10)
        // A line of an agent wave says which worker it is ("wave 2/3").
        let wave = SessionSignals.waveBadge(event).map { "  " + $0 } ?? ""
        let topic = theme.paint(event.topic, topicColor(event.topic), bold: true) + theme.dim(wave)
        let used = Text.width(head) + 10 + 2 + Text.width(event.topic) + Text.width(wave) + 2
        let payload = event.payload.map { Text.cut($0, max(0, width - used)) } ?? ""
        return head + hat + "  " + topic + (payload.isEmpty ? "" : "  " + payload)
    }

    func topicColor(_ topic: String) -> String {
        if topic.hasPrefix("human.") { return Theme.gold }
        if topic.contains("fail") || topic.contains("error") || topic.contains("blocked") || topic.hasSuffix(".rejected") { return Theme.pink }
        if topic.contains("done") || topic.contains("complete") || topic.contains("pass") || topic.contains("approved") { return Theme.green }
        return Theme.white
    }

    func connection(_ state: ConnectionState) -> String {
        switch state {
        case .disconnected: theme.dim("○ disconnected")
        case .connecting: theme.paint("◌ connecting…", Theme.gold)
        case .connected: theme.good("● connected")
        case .reconnecting(let attempt): theme.paint("◌ reconnecting (attempt \(attempt))", Theme.gold, bold: true)
        case .error(let message): theme.bad("✕ \(message)")
        }
    }

    func iteration(_ session: Session) -> String {
        session.total.map { "\(session.iteration)/\($0)" } ?? "\(session.iteration)"
    }

    /// The sessions table of `ralph-mobile sessions`; with a HOST column in a cluster (`clustered`, or any run naming
    /// its host). An unreachable run (its host offline) says so in its MODE and shows no stop.
    func sessionsTable(_ sessions: [Session], width: Int, clustered: Bool = false, empty: String? = nil) -> [String] {
        guard !sessions.isEmpty else {
            return [theme.dim(empty ?? "no sessions — start a ralph run in a workspace the server watches, or `ralph-mobile start`")]
        }
        let showsHost = clustered || sessions.contains { $0.host != nil }
        let header = ["ID"] + (showsHost ? ["HOST"] : []) + ["MODE", "ITER", "HAT", "STARTED", "LAST EVENT", "EVENTS", "TASK"]
        let rows: [[String]] = sessions.map { s in
            let stopping = !s.isUnreachable && ControlWords.nextStopForces(s)
            let host = showsHost ? [s.host.map { s.isUnreachable ? theme.bad($0) : $0 } ?? theme.dim("—")] : []
            return [theme.accent(String(s.id.prefix(8)))] + host + [
                theme.mode(s.mode) + (stopping ? theme.dim(" (stopping)") : ""), iteration(s), theme.hat(s.hat), Text.dateTime(s.startedAt),
                Text.dateTime(s.lastEventAt), String(s.eventCount), s.taskName ?? theme.dim("—"),
            ]
        }
        var widths = header.map { Text.width($0) }
        for row in rows { for (i, cell) in row.enumerated() where i < header.count - 1 { widths[i] = max(widths[i], Text.width(cell)) } }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (i, cell) in cells.enumerated() {
                if i == cells.count - 1 {
                    text += Text.width(cell) > max(8, width - Text.width(text)) && !cell.contains("\u{1B}") ? Text.cut(cell, max(8, width - Text.width(text))) : cell
                } else {
                    text += Text.pad(cell, widths[i]) + "  "
                }
            }
            return text
        }
        return [theme.dim(line(header))] + rows.map(line)
    }

    /// The hosts table of `ralph-mobile hosts`: name, state, when last heard from, version, runs, id.
    func hostsTable(_ hosts: [HostInfo], sessions: [Session], clustered: Bool) -> [String] {
        let header = ["HOST", "STATE", "LAST SEEN", "VERSION", "RUNS", "ID"]
        let rows: [[String]] = hosts.map { host in
            let runs = clustered ? sessions.filter { $0.hostId == host.id } : sessions
            let live = runs.filter { !$0.isUnreachable && ($0.mode == .live || $0.mode == .paused || $0.mode == .suspended) }.count
            let count = host.online ? "\(runs.count) (\(live) live)" : "\(runs.count) unreachable"
            return [
                host.isSelf ? theme.accent(host.name) + theme.dim(" (this server)") : host.name,
                host.online ? theme.good("● online") : theme.bad("✕ offline"), Text.dateTime(host.lastHeartbeatAt) + theme.dim(" (\(Self.ago(host.lastHeartbeatAt)))"),
                host.version, count, theme.dim(host.id),
            ]
        }
        var widths = header.map { Text.width($0) }
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], Text.width(cell)) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in i == cells.count - 1 ? cell : Text.pad(cell, widths[i]) }.joined(separator: "  ")
        }
        return [theme.dim(line(header))] + rows.map(line)
    }

    /// `3s ago`, `4m ago`, `2h ago`, `5d ago`.
    static func ago(_ ts: String, now: Date = Date()) -> String {
        guard let date = Timestamp.parse(ts) else { return "?" }
        let secs = max(0, Int(now.timeIntervalSince(date).rounded()))
        if secs < 60 { return "\(secs)s ago" }
        if secs < 3600 { return "\(secs / 60)m ago" }
        if secs < 86_400 { return "\(secs / 3600)h ago" }
        return "\(secs / 86_400)d ago"
    }

    /// `planner → builder → reviewer` (the last few transitions).
    func hatFlow(_ flow: [HatTransition], limit: Int = 6) -> String {
        guard let first = flow.first else { return theme.dim("no hat changes yet") }
        let shown = flow.suffix(limit)
        var names: [String] = []
        if flow.count > limit { names.append(theme.dim("…")) } else if let from = first.from { names.append(theme.hat(from)) }
        names += shown.map { theme.hat($0.to) }
        return names.joined(separator: theme.dim(" → "))
    }

    func backpressure(_ bp: Backpressure?) -> String {
        guard let bp else { return theme.dim("no checks reported yet") }
        var parts: [String] = bp.checks.map { "\($0.name) \($0.passed ? theme.good("✓") : theme.bad("✗"))" }
        if parts.isEmpty {
            for (name, value) in [("tests", bp.tests), ("lint", bp.lint), ("typecheck", bp.typecheck)] {
                if let value { parts.append("\(name) \(value ? theme.good("✓") : theme.bad("✗"))") }
            }
        }
        parts.append(theme.dim("done \(bp.doneCount) · blocked \(bp.blockedEvents)"))
        return parts.joined(separator: "  ")
    }

    func stats(_ stats: IterationStats?, session: Session?) -> String {
        guard let stats else { return theme.dim("—") }
        var parts = ["\(stats.current)\(stats.total.map { " of \($0)" } ?? "") iterations"]
        if let average = stats.averageDurationSecs { parts.append("avg \(Text.duration(average))") }
        if let left = stats.estimatedRemainingSecs { parts.append("~\(Text.duration(left)) left") }
        if let session { parts.append("elapsed \(Text.duration(Double(session.elapsedSecs)))") }
        return parts.joined(separator: theme.dim(" · "))
    }

    func tokens(_ tokens: TokenMetrics?, sparkline: [Int]) -> String {
        guard let tokens else { return theme.dim("not reported by this agent") }
        var text = "in \(Self.count(tokens.inputTokens))  out \(Self.count(tokens.outputTokens))"
        if tokens.cacheReadTokens > 0 { text += theme.dim("  cache \(Self.count(tokens.cacheReadTokens))") }
        if let cost = tokens.costUsd { text += "  $" + String(format: "%.2f", cost) }
        let line = Text.sparkline(Array(sparkline.suffix(40)))
        return line.isEmpty ? text : text + "  " + theme.paint(line, Theme.cyan)
    }

    /// `12.3k`, `4.5M`.
    static func count(_ n: Int) -> String {
        if n >= 1_000_000 { return String(format: "%.1fM", Double(n) / 1_000_000) }
        if n >= 10_000 { return String(format: "%.1fk", Double(n) / 1000) }
        return String(n)
    }

    func hats(_ usage: [(hat: String, color: String, iterations: Int)]) -> String {
        guard !usage.isEmpty else { return theme.dim("—") }
        return usage.map { "\(theme.paint("■", $0.color)) \($0.hat) \(theme.dim("×\($0.iterations)"))" }.joined(separator: "  ")
    }

    func stopReason(_ reason: StopReason?) -> String? {
        guard let reason else { return nil }
        var text = reason.reason
        if let message = reason.message, !message.isEmpty { text += " — \(message)" }
        if let code = reason.exitCode { text += " (exit \(code))" }
        return text
    }
}
