/// A model that holds a live connection (an event stream, or its polling fallback) while its screen is shown.
///
/// The app suspends every registered feed when it goes to the background (iOS would cut the sockets anyway) and
/// resumes them when it comes back. Resuming continues from the last event received (`Last-Event-ID`, or the
/// conversation's last sequence number), so nothing is missed and nothing is shown twice.
@MainActor
public protocol LiveFeed: AnyObject {
    /// Closes the connection, keeping what was received and where it stopped.
    func suspend()
    /// Opens it again from where it stopped.
    func resume() async
    /// Whether the connection is open (or being opened) now. ``LiveFeeds`` resumes on return only the feeds that were
    /// live when the app left, so a screen that closed its stream itself is not reopened behind its back.
    var isLive: Bool { get }
}

extension LiveFeed {
    /// A feed that does not say is taken to be live whenever it is registered.
    public var isLive: Bool { true }
}
