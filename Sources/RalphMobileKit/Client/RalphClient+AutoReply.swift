import Foundation
import RalphAPI

/// A conversation's auto-reply loop (`design/CHAT.md`, Auto-reply): its settings, presets and controls.
/// A control in the wrong state (stop a stopped loop, start a running one) is a `conflict` with the server's reason;
/// invalid settings are `invalidBody` with every problem.
extension RalphClient {
    /// The named presets the server offers (`careful`, `overnight`, `quick`, `supervised`).
    public func autoReplyPresets() async throws(RalphClientError) -> [String: AutoReplySettings] {
        try await get("/api/auto-reply/presets")
    }

    /// The loop's settings and where it is.
    public func autoReply(_ conversationID: String) async throws(RalphClientError) -> AutoReplyStatus {
        try await get(Self.autoReplyPath(conversationID))
    }

    /// Replaces the settings (a running loop uses the new limits at once); `asDefault` also makes them the defaults of
    /// new conversations in the same directory.
    public func setAutoReply(_ conversationID: String, _ settings: AutoReplySettings, asDefault: Bool = false) async throws(RalphClientError)
        -> AutoReplyStatus
    {
        try await send(.PUT, Self.autoReplyPath(conversationID), query: asDefault ? [("default", "true")] : [], json: settings)
    }

    /// Replaces the settings with a named preset.
    public func applyAutoReplyPreset(_ conversationID: String, name: String, asDefault: Bool = false) async throws(RalphClientError) -> AutoReplyStatus {
        var query = [("preset", name)]
        if asDefault { query.append(("default", "true")) }
        return try await send(.PUT, Self.autoReplyPath(conversationID), query: query)
    }

    /// Starts the loop, with new settings or the saved ones; the first prompt goes out at once when the conversation is idle.
    public func startAutoReply(_ conversationID: String, settings: AutoReplySettings? = nil) async throws(RalphClientError) -> AutoReplyStatus {
        if let settings { return try await send(.POST, Self.autoReplyPath(conversationID) + "/start", json: settings) }
        return try await send(.POST, Self.autoReplyPath(conversationID) + "/start")
    }

    /// Pauses a running loop; it goes on with ``resumeAutoReply(_:)``. Not running is a ``RalphClientError/conflict(_:)``.
    public func pauseAutoReply(_ conversationID: String) async throws(RalphClientError) -> AutoReplyStatus {
        try await send(.POST, Self.autoReplyPath(conversationID) + "/pause")
    }

    /// Resumes a paused loop (also the go for a prompt waiting for confirmation).
    public func resumeAutoReply(_ conversationID: String) async throws(RalphClientError) -> AutoReplyStatus {
        try await send(.POST, Self.autoReplyPath(conversationID) + "/resume")
    }

    /// Stops the loop for good (``startAutoReply(_:settings:)`` begins a new one). Already stopped is a ``RalphClientError/conflict(_:)``.
    public func stopAutoReply(_ conversationID: String) async throws(RalphClientError) -> AutoReplyStatus {
        try await send(.POST, Self.autoReplyPath(conversationID) + "/stop")
    }

    static func autoReplyPath(_ conversationID: String) -> String { "/api/conversations/\(component(conversationID))/auto-reply" }
}
