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
}
