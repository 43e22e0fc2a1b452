import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile sessions`: every run the server sees.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List the sessions (ralph runs) the server sees, newest first.",
        discussion: """
            With --watch the table stays on screen and follows the server's live session stream (falling back to polling \
            every few seconds when the stream is unavailable). In a cluster every host's runs are listed with a HOST \
            column; --host keeps one host's, and a run whose host is offline is `unreachable`.
            """
    )

    @OptionGroup var server: ServerOptions

    @Option(help: ArgumentHelp("Only the runs of this host of the cluster (its name or id; see `ralph-mobile hosts`).", valueName: "name"))
    var host: String?

    @Flag(help: "Print the server's JSON.")
    var json = false

    @Flag(help: "Keep the table on screen, updated live (Ctrl-C to leave).")
    var watch = false

    @MainActor
    func run() async throws {
        let format = Format(theme: server.theme)
        try await withClient(server) { client in
            var chosen: HostInfo?
            if let host { chosen = try await HostChoice.resolve(host, client: client) }
            let empty = chosen.map { "no sessions on host \($0.name)" }
            if json {
                let sessions = try await client.sessions(host: chosen?.id)
                say(try Self.prettyJSON(sessions))
                return
            }
            guard watch else {
                let sessions = try await client.sessions(host: chosen?.id)
                for line in format.sessionsTable(sessions, width: FullScreen.size().columns, clustered: chosen != nil, empty: empty) { say(line) }
                if let chosen, !chosen.online { say(server.theme.bad("host \(chosen.name) is offline: its runs are unreachable until it is back")) }
                return
            }
            let model = SessionsListModel(client: client)
            model.hostFilter = chosen?.id
            await model.start()
            var shown = ""
            while true {
                let on = model.filteredHost.map { "  " + server.theme.dim("host ") + $0.name } ?? ""
                var lines = ["\(server.theme.accent("RALPH MOBILE")) \(server.theme.dim(client.baseURL))\(on)  \(format.connection(model.connection))\(model.isPolling ? server.theme.dim(" · polling") : "")", ""]
                lines += format.sessionsTable(model.filteredSessions, width: FullScreen.size().columns, clustered: model.isClustered, empty: empty)
                if let banner = HostWords.offlineBanner(hosts: model.hosts, sessions: model.sessions) { lines += ["", server.theme.bad(banner)] }
                if let error = model.lastError { lines += ["", server.theme.bad(error)] }
                let screen = lines.joined(separator: "\u{1B}[K\n") + "\u{1B}[K\u{1B}[J"
                if screen != shown {
                    FullScreen.write("\u{1B}[H\u{1B}[2J" + screen)
                    shown = screen
                }
                try await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    static func prettyJSON(_ value: some Encodable) throws -> String {
        String(decoding: try WireJSON.encodePretty(value), as: UTF8.self)
    }
}

/// `ralph-mobile status ID`: one session in full.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show one session: state, hat flow, backpressure, iterations, tokens, hats, question, recent events."
    )

    @OptionGroup var server: ServerOptions

    @Argument(help: "The session id (or a unique prefix of it).")
    var id: String

    @Flag(help: "Print the server's JSON (GET /api/sessions/{id}).")
    var json = false

    @MainActor
    func run() async throws {
        let theme = server.theme
        let format = Format(theme: theme)
        try await withClient(server) { client in
            let detail: SessionDetail
            do {
                detail = try await client.detail(id)
            } catch {
                // The detail is folded by the run's host; while it is offline, what the cluster knows of the run is shown.
                guard case RalphClientError.hostOffline = error, !json else { throw error }
                let session = try await client.status(id)
                Self.summary(session, format: format)
                return
            }
            if json {
                say(try SessionsCommand.prettyJSON(detail))
                return
            }
            let s = detail.session
            let width = FullScreen.size().columns
            func row(_ label: String, _ value: String) { say("\(theme.dim(Text.pad(label, 13)))\(value)") }
            Self.summary(s, format: format)
            if let reason = format.stopReason(detail.stopReason) { row("stopped", reason) }
            row("hat flow", format.hatFlow(detail.hatFlow))
            row("backpressure", format.backpressure(detail.backpressure))
            row("iterations", format.stats(detail.iterationStats, session: s))
            row("tokens", format.tokens(detail.tokens, sparkline: detail.tokens?.samples.map { $0.inputTokens + $0.outputTokens } ?? []))
            if let rpc = detail.rpc {
                row("cost", RpcWords.cost(rpc) + "  " + theme.dim(RpcWords.tokens(rpc)))
                if let context = RpcWords.context(rpc) { row("context", context) }
                for call in RpcWords.toolCalls(rpc) { row("tool call", call) }
                if let wave = RpcWords.wave(rpc) { row("wave", wave) }
                if let ack = rpc.acks.last { row("steer", RpcWords.ack(ack)) }
            }
            row("hats", format.hats(detail.hatUsage.map { ($0.hat, HatPalette.color(for: $0.hat), $0.iterations) }))
            if let question = detail.pendingQuestion {
                row("question", theme.paint(question.questionText, Theme.gold, bold: true))
                row("", theme.dim("answer with: ralph-mobile answer \(question.id) \"…\""))
            }
            for item in detail.guidance.suffix(5) {
                let state = SessionSignals.guidanceState(item)
                row("guidance", "\(item.text)  " + (item.state == .pending ? theme.paint(state, Theme.gold, bold: true) : theme.dim(state)))
            }
            if let summary = SessionSignals.guidanceSummary(detail.guidance), !SessionSignals.pendingGuidance(detail).isEmpty { row("", theme.dim(summary)) }
            for wave in detail.waves.suffix(5) { row("wave", SessionSignals.waveTitle(wave) + (wave.hats.isEmpty ? "" : "  " + wave.hats.joined(separator: ", "))) }
            if let checkin = detail.checkin { row("check-in", SessionSignals.checkinLine(checkin)) }
            if detail.malformedLines > 0 { row("malformed", "\(detail.malformedLines) lines skipped") }
            let events = detail.recentEvents.compactMap(WorkflowEvent.init(json:)).suffix(10)
            if !events.isEmpty {
                say("")
                say(theme.dim("recent events"))
                for event in events { say(format.event(event, width: width)) }
            }
        }
    }
}

extension StatusCommand {
    /// The run's state, host, place and stop: the part of `status` the session alone says.
    static func summary(_ s: Session, format: Format) {
        let theme = format.theme
        func row(_ label: String, _ value: String) { say("\(theme.dim(Text.pad(label, 13)))\(value)") }
        say("\(theme.accent("session \(s.id)"))  \(theme.mode(s.mode))  \(theme.dim(s.status.rawValue))")
        row("task", s.taskName ?? "—")
        row("iteration", "\(format.iteration(s))  hat \(theme.hat(s.hat))")
        row("started", "\(Text.dateTime(s.startedAt))  last event \(Text.dateTime(s.lastEventAt))  events \(s.eventCount)")
        if let host = s.host { row("host", s.isUnreachable ? theme.bad(host + " (offline)") : host) }
        if let unreachable = HostWords.unreachable(s) { row("unreachable", theme.bad(unreachable)) }
        row("workspace", s.workspace)
        row("run file", s.path)
        if let pid = s.pid { row("pid", String(pid)) }
        if let hold = ControlWords.hold(s) { row("held", theme.paint(hold, Theme.gold, bold: true)) }
        if s.mode == .suspended { row("", theme.dim("go on with: ralph-mobile resume \(s.id.prefix(8))")) }
        if let stop = ControlWords.stop(s) { row("stop", stop) }
    }
}
