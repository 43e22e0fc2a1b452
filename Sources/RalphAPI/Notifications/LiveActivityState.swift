/// What a Live Activity shows on the lock screen and in the Dynamic Island: a running loop (iteration, hat, last event,
/// backpressure) or a conversation's turn waiting for approval.
///
/// It is the iOS app's `ActivityAttributes.ContentState`, and the `content-state` of an APNs `liveactivity` push: the
/// server encodes the same JSON to update an activity, so the type lives with the wire contract. `RalphMobileKit`'s
/// `LiveActivityContent` builds it from a session or a conversation.
public struct LiveActivityState: Codable, Hashable, Sendable {
    /// Where the thing stands.
    public enum Phase: String, Codable, Hashable, Sendable, CaseIterable {
        case running
        case paused
        /// A run's RObot question waits for an answer.
        case waitingForAnswer = "waiting_for_answer"
        /// A conversation's turn waits for a tool approval.
        case waitingForApproval = "waiting_for_approval"
        /// A conversation with no turn running.
        case idle
        case completed
        case failed
        case stopped

        /// Whether the activity is over (it ends, and stays on the lock screen a while).
        public var isFinal: Bool { self == .completed || self == .failed || self == .stopped }
        /// Whether a person is needed.
        public var needsPerson: Bool { self == .waitingForAnswer || self == .waitingForApproval }
    }

    /// The latest backpressure evidence of a run, counted.
    public struct BackpressureSummary: Codable, Hashable, Sendable {
        public var passed: Int
        public var failed: Int
        /// `tests ✓ lint ✗`, in the order the run reported the checks.
        public var text: String
        /// The record was `build.blocked`.
        public var blocked: Bool

        public init(passed: Int, failed: Int, text: String, blocked: Bool) {
            self.passed = passed
            self.failed = failed
            self.text = text
            self.blocked = blocked
        }
    }

    /// What waits for a person.
    public struct Waiting: Codable, Hashable, Sendable {
        /// The tool (`Bash`) of the oldest waiting approval, or `question` for a RObot question.
        public var what: String
        /// The command, path or question, shortened.
        public var detail: String?
        /// How many things wait.
        public var count: Int
        /// When the question times out, if it does.
        public var until: String?

        public init(what: String, detail: String?, count: Int, until: String? = nil) {
            self.what = what
            self.detail = detail
            self.count = count
            self.until = until
        }
    }

    public var phase: Phase
    /// A run's iteration (0 for a conversation).
    public var iteration: Int
    /// A run's `max_iterations`, when known.
    public var total: Int?
    /// The hat at work.
    public var hat: String?
    /// The topic of the latest event (a run) or the last message's start (a conversation).
    public var lastEvent: String?
    public var lastEventAt: String?
    public var backpressure: BackpressureSummary?
    public var waiting: Waiting?
    /// The reason a run ended (`completed`, `max_iterations` …).
    public var endReason: String?

    public init(
        phase: Phase, iteration: Int, total: Int? = nil, hat: String? = nil, lastEvent: String? = nil, lastEventAt: String? = nil,
        backpressure: BackpressureSummary? = nil, waiting: Waiting? = nil, endReason: String? = nil
    ) {
        self.phase = phase
        self.iteration = iteration
        self.total = total
        self.hat = hat
        self.lastEvent = lastEvent
        self.lastEventAt = lastEventAt
        self.backpressure = backpressure
        self.waiting = waiting
        self.endReason = endReason
    }

    enum CodingKeys: String, CodingKey {
        case phase, iteration, total, hat, backpressure, waiting
        case lastEvent = "last_event"
        case lastEventAt = "last_event_at"
        case endReason = "end_reason"
    }
}
