import ArgumentParser
import Foundation
import RalphAPI
import RalphMobileKit

/// `ralph-mobile watch ID`: the live dashboard.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "A live full-screen dashboard of one session.",
        discussion: """
            Shows the state, hat flow, backpressure, iteration stats, tokens, hats, a pending question and the newest \
            events, with the connection state. Keys: p pause/resume · s stop (asks y/N) · e emit · g steer · \
            a answer the question · x export the session as JSON · q quit.
            """
    )

    @OptionGroup var server: ServerOptions

    @Argument(help: "The session id (or a unique prefix of it).")
    var id: String

    @MainActor
    func run() async throws {
        try await Dashboard.run(server: server, sessionID: id)
    }
}

/// The full-screen dashboard: a ``SessionMonitor`` drawn with ANSI, redrawn when it changes, driven by keys.
@MainActor
final class Dashboard {
    enum Mode: Equatable {
        case normal
        case confirmStop
        /// Typing a line: what it is for, and the text so far.
        case input(Prompt, [UInt8])
    }

    enum Prompt: Equatable {
        case emitTopic
        case emitPayload(topic: String)
        case steer
        case answer(questionID: String)

        var label: String {
            switch self {
            case .emitTopic: "emit topic"
            case .emitPayload(let topic): "\(topic) payload (JSON or text, empty for none)"
            case .steer: "guidance for the agent"
            case .answer: "your answer"
            }
        }
    }

    let monitor: SessionMonitor
    let theme: Theme
    let format: Format
    var mode = Mode.normal
    /// The last action's outcome, shown in the footer.
    var message: (text: String, isError: Bool)?
    var quit = false
    var busy = false
    /// Escape sequence being skipped (arrow keys and the like).
    var escape: [UInt8]?

    init(monitor: SessionMonitor, theme: Theme) {
        self.monitor = monitor
        self.theme = theme
        self.format = Format(theme: theme)
    }

    static func run(server: ServerOptions, sessionID: String) async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw fail(RalphMobileFailure(message: "watch needs a terminal; use `ralph-mobile events \(sessionID)` in scripts and pipes"))
        }
        try await withClient(server) { client in
            // Resolve the id first so a typo or a refused key is reported plainly, not on the full screen.
            let session = try await client.status(sessionID)
            let dashboard = Dashboard(monitor: SessionMonitor(client: client, sessionID: session.id), theme: server.theme)
            await dashboard.show()
        }
    }

    func show() async {
        let screen = FullScreen()
        screen.enter()
        defer { screen.leave() }
        await monitor.connect()
        let keys = Task { @MainActor in
            for await byte in KeyReader.keys() {
                await self.handle(byte)
                self.draw()
                if self.quit { break }
            }
            self.quit = true
        }
        defer { keys.cancel() }
        var sinceRefresh = 0
        while !quit {
            draw()
            try? await Task.sleep(for: .milliseconds(100))
            sinceRefresh += 1
            // Elapsed time and a pause or stop made elsewhere show up without waiting for an event.
            // A run of an offline host is read again too: its host coming back sends nothing on its stream.
            let unreachable = monitor.session?.isUnreachable ?? false
            if sinceRefresh >= 30, monitor.isSessionActive || unreachable {
                sinceRefresh = 0
                await monitor.refreshStatus()
                if unreachable, let session = monitor.session, !session.isUnreachable {
                    message = ("host \(session.host ?? "") is back", false)
                    if monitor.isSessionActive, !monitor.isStreaming { await monitor.connect() }
                }
            }
        }
        monitor.disconnect()
    }

    // MARK: - Keys

    func handle(_ byte: UInt8) async {
        if var sequence = escape {
            // Skip `ESC [ … final-byte` and `ESC O x` (arrow and function keys); a lone ESC then a key is just the key.
            sequence.append(byte)
            if sequence.count == 1 {
                escape = byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") ? sequence : nil
                if escape != nil { return }
            } else {
                escape = sequence.first == UInt8(ascii: "[") && !(0x40...0x7E).contains(byte) ? sequence : nil
                return
            }
        }
        if byte == 0x1B {
            escape = []
            if mode != .normal {
                mode = .normal
                message = ("cancelled", false)
            }
            return
        }
        switch mode {
        case .normal: await normalKey(byte)
        case .confirmStop:
            mode = .normal
            if byte == UInt8(ascii: "y") || byte == UInt8(ascii: "Y") {
                await act("stopping…") {
                    ControlWords.stopAnswer(try await self.monitor.stop(force: self.monitor.session.map(ControlWords.nextStopForces) ?? false))
                }
            } else {
                message = ("not stopped", false)
            }
        case .input(let prompt, var text):
            switch byte {
            case 0x0D, 0x0A:
                mode = .normal
                await submit(prompt, String(decoding: text, as: UTF8.self))
            case 0x7F, 0x08:
                // Drop one whole character (its continuation bytes first).
                while let last = text.popLast(), last & 0xC0 == 0x80 {}
                mode = .input(prompt, text)
            case 0x15:
                mode = .input(prompt, [])
            case 0x20..., 0x09:
                text.append(byte)
                mode = .input(prompt, text)
            default:
                break
            }
        }
    }

    func normalKey(_ byte: UInt8) async {
        let key = Character(Unicode.Scalar(byte))
        // A run whose host is offline cannot be controlled: said at once, nothing is sent.
        if "pPsSeEgGaA".contains(key), let session = monitor.session, let off = HostWords.controlsOffBrief(session) {
            message = (off, true)
            return
        }
        switch key {
        case "q", "Q":
            quit = true
        case "p", "P":
            if monitor.session?.mode == .paused {
                await act("resuming…") {
                    try await self.monitor.resume()
                    return "resumed"
                }
            } else {
                await act("pausing…") {
                    try await self.monitor.pause()
                    return "paused — press p to resume"
                }
            }
        case "s", "S":
            mode = .confirmStop
        case "e", "E":
            mode = .input(.emitTopic, [])
        case "g", "G":
            mode = .input(.steer, [])
        case "a", "A":
            if let question = monitor.detail?.pendingQuestion {
                mode = .input(.answer(questionID: question.id), [])
            } else {
                message = ("no question is waiting for an answer", false)
            }
        case "x", "X":
            export()
        default:
            break
        }
    }

    func submit(_ prompt: Prompt, _ text: String) async {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch prompt {
        case .emitTopic:
            guard !trimmed.isEmpty else {
                message = ("no topic — nothing emitted", false)
                return
            }
            mode = .input(.emitPayload(topic: trimmed), [])
        case .emitPayload(let topic):
            await act("emitting…") {
                let answer = try await self.monitor.emit(topic: topic, payload: trimmed.isEmpty ? nil : EmitCommand.payload(trimmed))
                return "emitted \(answer.topic)"
            }
        case .steer:
            guard !trimmed.isEmpty else {
                message = ("empty guidance — nothing sent", false)
                return
            }
            await act("sending guidance…") {
                _ = try await self.monitor.steer(trimmed)
                return "guidance delivered"
            }
        case .answer(let questionID):
            guard !trimmed.isEmpty else {
                message = ("empty answer — nothing sent", false)
                return
            }
            await act("answering…") {
                _ = try await self.monitor.client.answer(questionID: questionID, text: trimmed)
                await self.monitor.refreshStatus()
                return "answer delivered"
            }
        }
    }

    /// Runs an action, showing progress, then its outcome or error.
    func act(_ progress: String, _ action: @escaping @MainActor () async throws -> String) async {
        guard !busy else {
            message = ("still working on the last action", true)
            return
        }
        busy = true
        message = (progress, false)
        draw()
        do {
            message = (try await action(), false)
        } catch {
            message = ("\(error)", true)
        }
        busy = false
    }

    func export() {
        let stamp = Timestamp.now().replacingOccurrences(of: ":", with: "").replacingOccurrences(of: "-", with: "").prefix(15)
        let path = FileManager.default.currentDirectoryPath + "/ralph-session-\(monitor.sessionID.prefix(8))-\(stamp).json"
        do {
            try monitor.exportJSON().write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)
            message = ("exported \(monitor.events.count) events to \(path)", false)
        } catch {
            message = ("export failed: \(error.localizedDescription)", true)
        }
    }

    // MARK: - Drawing

    private var shown = ""

    func draw() {
        let (columns, rows) = FullScreen.size()
        // Every line fits its row: a wrapped line would scroll the header off the screen.
        var lines = render(columns: columns, rows: rows).map { Text.fit($0, columns) }
        if lines.count > rows { lines.removeLast(lines.count - rows) }
        let screen = "\u{1B}[H" + lines.joined(separator: "\u{1B}[K\r\n") + "\u{1B}[K\u{1B}[J"
        guard screen != shown else { return }
        shown = screen
        FullScreen.write(screen)
    }

    func render(columns: Int, rows: Int) -> [String] {
        let t = theme
        var lines: [String] = []
        let rule = t.paint(String(repeating: "─", count: columns), Theme.border)
        func row(_ label: String, _ value: String) { lines.append(" \(t.dim(Text.pad(label, 13)))\(value)") }

        let id = String(monitor.sessionID.prefix(8))
        if let s = monitor.session {
            let host = s.host.map { "  \(t.dim("host")) " + (s.isUnreachable ? t.bad($0) : $0) } ?? ""
            lines.append(" \(t.accent("RALPH MOBILE")) \(t.dim("▸")) \(t.accent(id))\(host)  \(t.mode(s.mode))  iteration \(format.iteration(s))  hat \(t.hat(s.hat))  \(t.dim(Text.cut(s.taskName ?? "", max(0, columns - 70))))")
        } else {
            lines.append(" \(t.accent("RALPH MOBILE")) \(t.dim("▸")) \(t.accent(id))")
        }
        // While its host is offline the stream only waits: the host's state is what matters.
        let connection = monitor.session.flatMap { $0.isUnreachable ? t.bad("✕ host \($0.host ?? "") offline") : nil } ?? format.connection(monitor.connection)
        lines.append(" \(connection)  \(t.dim("·")) \(monitor.eventCount) events  \(t.dim("·")) reconnects \(monitor.reconnectAttempts)  \(t.dim("· " + monitor.client.baseURL))")
        lines.append(rule)
        if let unreachable = monitor.session.flatMap(HostWords.unreachable) { row("unreachable", t.bad(unreachable)) }
        if let reason = format.stopReason(monitor.detail?.stopReason), monitor.session?.mode != .live, monitor.session?.isUnreachable != true {
            row("run ended", t.paint(reason, Theme.gold))
        }
        row("hat flow", format.hatFlow(monitor.hatFlow))
        row("backpressure", format.backpressure(monitor.backpressure))
        row("iterations", format.stats(monitor.iterationStats, session: monitor.session))
        row("tokens", format.tokens(monitor.tokenTotals, sparkline: monitor.tokenSparkline))
        row("hats", format.hats(monitor.hatsReference))
        if let question = monitor.detail?.pendingQuestion {
            row("question", t.paint(Text.cut(question.questionText, max(10, columns - 30)), Theme.gold, bold: true) + t.dim("  (a to answer)"))
        }
        lines.append(rule)
        lines.append(" \(t.dim("EVENTS — newest first"))")

        let footer = footerLines(columns: columns)
        let room = max(0, rows - lines.count - footer.count - 1)
        let events = monitor.events.prefix(room)
        if events.isEmpty { lines.append(t.dim(monitor.isSessionActive ? " waiting for events…" : " no events")) }
        for event in events { lines.append(" " + format.event(event, width: columns - 1)) }
        while lines.count < rows - footer.count { lines.append("") }
        return lines + footer
    }

    func footerLines(columns: Int) -> [String] {
        let t = theme
        var lines = [t.paint(String(repeating: "─", count: columns), Theme.border)]
        switch mode {
        case .normal:
            let pauseLabel = monitor.session?.mode == .paused ? "resume" : "pause"
            let off = monitor.session.flatMap(HostWords.controlsOffBrief)
            // A run whose host is offline offers no controls: only what works without its host.
            let keys = off != nil ? [("x", "export"), ("q", "quit")] : [("p", pauseLabel), ("s", "stop"), ("e", "emit"), ("g", "steer"), ("a", "answer"), ("x", "export"), ("q", "quit")]
            var text = " " + keys.map { "\(t.accent($0.0)) \($0.1)" }.joined(separator: "  ")
            if let message {
                text += "   " + (message.isError ? t.bad(message.text) : t.paint(message.text, Theme.gold))
            } else if let off {
                text += "   " + t.bad(off)
            } else if let error = monitor.lastError {
                text += "   " + t.bad(error)
            }
            lines.append(text)
        case .confirmStop:
            let forces = monitor.session.map(ControlWords.nextStopForces) ?? false
            let what = forces ? " force-stop now (SIGTERM, then SIGKILL)" : " stop at the end of this iteration"
            lines.append(" " + t.bad("Stop run \(monitor.sessionID.prefix(8))?") + "  " + t.accent("y") + what + "  ·  any other key: keep it running")
        case .input(let prompt, let text):
            lines.append(" \(t.accent(prompt.label)): \(String(decoding: text, as: UTF8.self))\(t.paint("▌", Theme.cyan))   \(t.dim("Enter to send · Esc to cancel"))")
        }
        return lines
    }
}
