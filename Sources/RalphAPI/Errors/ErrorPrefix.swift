/// Error prefixes of the contract. Original ones are kept verbatim; new ones follow their style.
public struct ErrorPrefix: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // Original prefixes (reference §1.3, §2).
    public static let sessionNotFound = ErrorPrefix(rawValue: "session_not_found")
    public static let invalidPath = ErrorPrefix(rawValue: "invalid_path")
    public static let invalidTopic = ErrorPrefix(rawValue: "invalid_topic")
    public static let configNotFound = ErrorPrefix(rawValue: "config_not_found")
    public static let promptNotFound = ErrorPrefix(rawValue: "prompt_not_found")
    public static let failedToSpawn = ErrorPrefix(rawValue: "failed_to_spawn")

    // Prefixes added by this server.
    public static let unauthorized = ErrorPrefix(rawValue: "unauthorized")
    public static let forbidden = ErrorPrefix(rawValue: "forbidden")
    public static let conflict = ErrorPrefix(rawValue: "conflict")
    public static let notRunning = ErrorPrefix(rawValue: "not_running")
    public static let invalidBody = ErrorPrefix(rawValue: "invalid_body")
    public static let invalidParameter = ErrorPrefix(rawValue: "invalid_parameter")
    public static let notFound = ErrorPrefix(rawValue: "not_found")
    public static let methodNotAllowed = ErrorPrefix(rawValue: "method_not_allowed")
    // The HTTP layer's refusals: a body over the limit, too many failed keys, a `Host` this server does not answer
    // for, a changing request that is not JSON, a head that took too long.
    public static let payloadTooLarge = ErrorPrefix(rawValue: "payload_too_large")
    public static let tooManyRequests = ErrorPrefix(rawValue: "too_many_requests")
    public static let misdirectedRequest = ErrorPrefix(rawValue: "misdirected_request")
    public static let unsupportedMediaType = ErrorPrefix(rawValue: "unsupported_media_type")
    /// A request head not sent in time (`408`, then the connection is closed).
    public static let requestTimeout = ErrorPrefix(rawValue: "request_timeout")
    // Library and workspace routes (original names, prefix style).
    public static let taskNotFound = ErrorPrefix(rawValue: "task_not_found")
    public static let loopNotFound = ErrorPrefix(rawValue: "loop_not_found")
    public static let memoriesNotFound = ErrorPrefix(rawValue: "memories_not_found")
    public static let invalidOperation = ErrorPrefix(rawValue: "invalid_operation")
    public static let mergeFailed = ErrorPrefix(rawValue: "merge_failed")
    public static let discardFailed = ErrorPrefix(rawValue: "discard_failed")
    public static let commandError = ErrorPrefix(rawValue: "command_error")
    public static let registryError = ErrorPrefix(rawValue: "registry_error")
    public static let invalidConfig = ErrorPrefix(rawValue: "invalid_config")
    public static let skillNotFound = ErrorPrefix(rawValue: "skill_not_found")
    public static let unavailable = ErrorPrefix(rawValue: "unavailable")
    /// `503`: the run or conversation belongs to a host of the cluster that is offline (or did not answer).
    public static let hostOffline = ErrorPrefix(rawValue: "host_offline")
    /// The original robot route's error for an unknown or no longer pending question.
    public static let questionNotFound = ErrorPrefix(rawValue: "question_not_found")
    public static let internalError = ErrorPrefix(rawValue: "internal_error")
}
