#if canImport(ActivityKit) && os(iOS)
import ActivityKit
import RalphAPI

/// On iOS the subject is the Live Activity's attributes, and ``LiveActivityState`` its content state: the app and its
/// widget extension share these types through this package, and a `liveactivity` push's `content-state` decodes into
/// the same state.
extension LiveActivitySubject: ActivityAttributes {
    /// The content a Live Activity of this subject shows.
    public typealias ContentState = LiveActivityState
}
#endif
