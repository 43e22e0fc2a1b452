import RalphMobileKit

// The SDK's models that hold a stream, as feeds the app suspends in the background and resumes on return. (A session's
// feed is its screen's model, SessionDetailScreenModel: SessionMonitor's own resume() resumes the run.)

/// The list is state, not history: resuming reloads it and reopens the global stream (polling while it is down).
extension SessionsListModel: LiveFeed {
    public func suspend() { stop() }
    public func resume() async { await start() }
    public var isLive: Bool { connection != .disconnected || isPolling }
}

/// Resuming reloads the conversation (its newest messages, its pending approvals, its status) and follows its stream
/// from the last event of that page, so everything stored meanwhile shows once. One gap remains, until the SDK can
/// reopen the stream from its own last event: a reply being streamed across the suspension keeps the text received
/// before it and continues with what follows the reload, without the part streamed in between (reopening the
/// conversation shows the stored reply whole).
extension ConversationModel: LiveFeed {
    public func suspend() { disconnect() }
    public func resume() async { await load() }
    public var isLive: Bool { connection != .disconnected }
}

/// The pending approvals are state: resuming reloads them and reopens the global stream.
extension ApprovalsModel: LiveFeed {
    public func suspend() { stop() }
    public func resume() async { await start() }
    public var isLive: Bool { connection != .disconnected }
}

/// The auto-reply progress is state: following again re-reads it on connecting.
extension AutoReplyModel: LiveFeed {
    public func suspend() { stopFollowing() }
    public func resume() async { follow() }
    public var isLive: Bool { isFollowing }
}
