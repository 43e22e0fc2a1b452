import Foundation
import Observation
import RalphAPI

/// A conversation's auto-reply loop as a settings screen shows it: the saved settings, a form (``draft``) validated as
/// it is edited, the presets, the controls, and the live progress.
///
/// - ``draft`` is the form; ``problems`` are its problems (the same words the server uses), and ``save(asDefault:)``
///   refuses locally while there are any, without a request.
/// - ``start()`` sends the draft along when it differs from the saved settings.
/// - Progress comes from the control answers, from ``apply(_:)`` (a chat screen forwards `ConversationModel.autoReply`),
///   or from ``follow()``, which opens the conversation's event stream itself. An older progress never replaces a newer one.
@MainActor
@Observable
public final class AutoReplyModel {
    /// The conversation whose loop this is.
    public let conversationID: String
    /// The client it reads and controls the loop through.
    public let client: RalphClient

    /// The settings saved on the server.
    public private(set) var settings = AutoReplySettings()
    /// The form: edited freely, saved with ``save(asDefault:)`` or sent with ``start()``.
    public var draft = AutoReplySettings()
    /// Where the loop is, as last heard; nil before ``load()``.
    public private(set) var progress: AutoReplyProgress?
    /// The server's named presets (the built-in ones until ``load()``).
    public private(set) var presets: [String: AutoReplySettings] = AutoReplySettings.presets
    /// Why the last action failed; cleared by the next one that succeeds.
    public private(set) var lastError: String?
    /// Whether ``load()`` has succeeded.
    public private(set) var isLoaded = false
    /// The event stream of ``follow()``.
    public private(set) var connection: ConnectionState = .disconnected
    /// The reconnect policy of ``follow()``'s stream; takes effect at the next ``follow()``.
    public var policy = ReconnectPolicy()

    @ObservationIgnored private var followTask: Task<Void, Never>?

    /// A model with default settings and nothing read yet; call ``load()``.
    public init(client: RalphClient, conversationID: String) {
        self.client = client
        self.conversationID = conversationID
    }

    // MARK: - Form

    /// Everything wrong with the draft, worded for a person; empty when it can be saved.
    public var problems: [String] { draft.problems }
    /// The draft differs from the saved settings.
    public var isDirty: Bool { draft != settings }
    /// Whether ``save(asDefault:)`` would send: the draft has edits and no problems.
    public var canSave: Bool { isDirty && problems.isEmpty }

    /// Puts a preset's mode and limits into the draft; its next prompt and judge are kept. False for an unknown name.
    @discardableResult
    public func applyPreset(_ name: String) -> Bool {
        guard var preset = presets[name] ?? AutoReplySettings.presets[name] else {
            lastError = "unknown preset '\(name)'; presets: \(presets.keys.sorted().joined(separator: ", "))"
            return false
        }
        preset.nextPrompt = draft.nextPrompt
        preset.judge = draft.judge
        draft = preset
        lastError = nil
        return true
    }

    /// Discards the draft's edits.
    public func revert() { draft = settings }

    /// The draft as pretty JSON (the server's field names), for sharing or a file.
    public func exportJSON() -> String {
        return (try? WireJSON.encodePretty(draft)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Reads settings JSON (whole or partial: missing fields take their defaults) into the draft. On failure the draft
    /// is unchanged and ``lastError`` says why.
    @discardableResult
    public func importJSON(_ text: String) -> Bool {
        do {
            draft = try WireJSON.decode(AutoReplySettings.self, from: Data(text.utf8))
            lastError = nil
            return true
        } catch let error as DecodingError {
            lastError = "not auto-reply settings: \(Self.describe(error))"
        } catch {
            lastError = "not auto-reply settings: the text is not valid JSON"
        }
        return false
    }

    // MARK: - Server

    /// Loads the settings, the progress and the presets; the draft becomes the saved settings.
    public func load() async {
        do {
            let status = try await client.autoReply(conversationID)
            presets = try await client.autoReplyPresets()
            take(status, resetDraft: true)
            isLoaded = true
            lastError = nil
        } catch {
            lastError = error.description
        }
    }

    /// Saves the draft (`asDefault`: also for new conversations in the same directory). Refused without a request
    /// while the draft has problems.
    @discardableResult
    public func save(asDefault: Bool = false) async -> Bool {
        guard problems.isEmpty else {
            lastError = problems.joined(separator: "; ")
            return false
        }
        return await control { (client, id) throws(RalphClientError) in try await client.setAutoReply(id, self.draft, asDefault: asDefault) }
    }

    /// Starts the loop, sending the draft when it has unsaved edits (refused locally while it has problems).
    @discardableResult
    public func start() async -> Bool {
        let edited = isDirty
        if edited, !problems.isEmpty {
            lastError = problems.joined(separator: "; ")
            return false
        }
        let settings = edited ? draft : nil
        return await control { (client, id) throws(RalphClientError) in try await client.startAutoReply(id, settings: settings) }
    }

    /// Pauses the running loop; false (with ``lastError``) when the server refuses, e.g. a loop not running.
    @discardableResult
    public func pause() async -> Bool { await control { (client, id) throws(RalphClientError) in try await client.pauseAutoReply(id) } }

    /// Resumes a paused loop (also the go for a prompt waiting for confirmation).
    @discardableResult
    public func resume() async -> Bool { await control { (client, id) throws(RalphClientError) in try await client.resumeAutoReply(id) } }

    /// Stops the loop; false (with ``lastError``) when the server refuses, e.g. a loop stopped already.
    @discardableResult
    public func stop() async -> Bool { await control { (client, id) throws(RalphClientError) in try await client.stopAutoReply(id) } }

    private func control(_ call: (RalphClient, String) async throws(RalphClientError) -> AutoReplyStatus) async -> Bool {
        do {
            let status = try await call(client, conversationID)
            take(status, resetDraft: true)
            lastError = nil
            return true
        } catch {
            lastError = error.description
            return false
        }
    }

    private func take(_ status: AutoReplyStatus, resetDraft: Bool) {
        settings = status.settings
        if resetDraft { draft = status.settings }
        apply(status.progress)
    }

    // MARK: - Progress

    /// Takes a progress report (an `auto_reply` event); one of another conversation, or older than the one shown, is ignored.
    public func apply(_ progress: AutoReplyProgress) {
        guard progress.conversationId == conversationID else { return }
        if let current = self.progress, let old = Timestamp.parse(current.updatedAt), let new = Timestamp.parse(progress.updatedAt), new < old { return }
        self.progress = progress
    }

    /// Follows the conversation's live events, applying `auto_reply` ones, until ``stopFollowing()``. Each (re)connection
    /// also reads the status, so nothing said while disconnected is missed.
    public func follow() {
        followTask?.cancel()
        let stream = client.conversationEvents(conversationID, after: nil, policy: policy)
        followTask = Task { [weak self] in
            for await update in stream.updates() {
                guard let self else { return }
                switch update {
                case .state(let state):
                    self.connection = state
                    if state == .connected, let status = try? await self.client.autoReply(self.conversationID) { self.apply(status.progress) }
                case .event(let event):
                    guard event.event == ChatEventName.autoReply,
                        case .autoReply(let progress)? = try? ChatEvent.decode(name: event.event, data: Data(event.data.utf8))
                    else { continue }
                    self.apply(progress)
                case .end:
                    break
                }
            }
        }
    }

    /// Closes ``follow()``'s stream.
    public func stopFollowing() {
        followTask?.cancel()
        followTask = nil
        connection = .disconnected
    }

    /// Whether ``follow()`` was called and ``stopFollowing()`` not since (also true once the stream gave up).
    public var isFollowing: Bool { followTask != nil }

    /// How far the loop is towards its nearest limit (0 – 1): the most advanced of cycles, messages and minutes.
    public var fractionDone: Double? {
        guard let p = progress else { return nil }
        var fractions: [Double] = []
        if p.maxIterations > 0 { fractions.append(Double(p.iterations) / Double(p.maxIterations)) }
        if let m = p.maxMessages, m > 0 { fractions.append(Double(p.messages) / Double(m)) }
        if let m = p.maxMinutes, m > 0 { fractions.append(Double(p.elapsedSecs) / Double(m * 60)) }
        return fractions.max().map { min(max($0, 0), 1) }
    }

    /// One line for a person: "running · cycle 3/20 · 2 sent · 1m 05s · confidence 0.42", "paused: showstopper — …",
    /// "stopped: message_limit".
    public var statusLine: String {
        guard let p = progress else { return isLoaded ? "off" : "not loaded" }
        switch p.state {
        case .running:
            var parts = ["running", "cycle \(p.iterations)/\(p.maxIterations)", "\(p.messages)" + (p.maxMessages.map { "/\($0)" } ?? "") + " sent"]
            parts.append(Self.duration(p.elapsedSecs) + (p.maxMinutes.map { " of \(Self.duration($0 * 60))" } ?? ""))
            if let c = p.confidence { parts.append(String(format: "confidence %.2f", c)) }
            return parts.joined(separator: " · ")
        case .paused:
            var line = "paused"
            if let r = p.pauseReason { line += ": \(r.rawValue)" }
            if let d = p.detail, !d.isEmpty { line += " — \(d)" } else if p.pendingPrompt != nil { line += " — the next prompt waits for your go" }
            return line
        case .stopped:
            guard let r = p.stopReason else { return "stopped" }
            var line = "stopped: \(r.rawValue)"
            if let d = p.detail, !d.isEmpty { line += " — \(d)" }
            return line
        }
    }

    /// `42s`, `1m 05s`, `2h 03m`.
    static func duration(_ seconds: Int) -> String {
        let s = max(seconds, 0)
        if s < 60 { return "\(s)s" }
        if s < 3600 { return String(format: "%dm %02ds", s / 60, s % 60) }
        return String(format: "%dh %02dm", s / 3600, (s % 3600) / 60)
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let p = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? "" : "\(p): "
        }
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return path(c) + c.debugDescription
        case .keyNotFound(let key, let c): return path(c) + "missing \(key.stringValue)"
        case .dataCorrupted(let c): return path(c) + c.debugDescription
        @unknown default: return "\(error)"
        }
    }
}
