/// The live feeds of the screens shown now, held weakly: a screen's model registers itself when it opens its stream
/// (`app.feeds.register(model)`) and is forgotten when the screen goes away.
///
/// - ``enterBackground()`` suspends every feed that is live and remembers them; ``enterForeground()`` resumes exactly
///   those. A feed registered while the app is in the background is suspended at once and resumed with the others.
/// - ``closeAll()`` suspends every feed and forgets them all: the server changed, and no feed of the old one may
///   reconnect.
@MainActor
public final class LiveFeeds {
    private struct Entry {
        weak var feed: (any LiveFeed)?
        /// Suspended by ``LiveFeeds/enterBackground()`` (or on registration in the background), to resume on return.
        var suspendedByUs: Bool
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    /// Whether the app is in the background (between ``enterBackground()`` and ``enterForeground()``).
    public private(set) var isInBackground = false

    public init() {}

    /// Adds a feed (again: no effect). In the background it is suspended at once, to be resumed on return.
    public func register(_ feed: any LiveFeed) {
        prune()
        let id = ObjectIdentifier(feed)
        guard entries[id]?.feed == nil else { return }
        var entry = Entry(feed: feed, suspendedByUs: false)
        if isInBackground, feed.isLive {
            feed.suspend()
            entry.suspendedByUs = true
        }
        entries[id] = entry
    }

    /// Forgets a feed without touching its connection.
    public func unregister(_ feed: any LiveFeed) {
        entries[ObjectIdentifier(feed)] = nil
    }

    /// The feeds registered and still alive.
    public var feeds: [any LiveFeed] {
        prune()
        return entries.values.compactMap(\.feed)
    }

    public var count: Int { feeds.count }

    /// The app left the foreground: every live feed closes its connection.
    public func enterBackground() {
        isInBackground = true
        prune()
        for (id, entry) in entries {
            guard let feed = entry.feed, !entry.suspendedByUs, feed.isLive else { continue }
            feed.suspend()
            entries[id]?.suspendedByUs = true
        }
    }

    /// The app is back: the feeds suspended by ``enterBackground()`` reopen from where they stopped, one after another.
    public func enterForeground() async {
        isInBackground = false
        prune()
        let toResume = entries.compactMap { id, entry in entry.suspendedByUs ? (id, entry.feed) : nil }
        for case (let id, let feed?) in toResume {
            // The app may have gone to the background again meanwhile: the rest stay suspended, marked for next time.
            if isInBackground { break }
            entries[id]?.suspendedByUs = false
            await feed.resume()
            // It went to the background while this feed was reopening: close it again.
            if isInBackground, feed.isLive, entries[id]?.suspendedByUs == false {
                feed.suspend()
                entries[id]?.suspendedByUs = true
            }
        }
    }

    /// Suspends every feed and forgets them all (the server changed: nothing of the old one reconnects).
    public func closeAll() {
        for entry in entries.values { entry.feed?.suspend() }
        entries = [:]
    }

    private func prune() {
        entries = entries.filter { $0.value.feed != nil }
    }
}
