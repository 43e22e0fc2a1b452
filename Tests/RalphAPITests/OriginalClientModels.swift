import Foundation

// Mirrors of the RalphMobile iOS client's models (reference §8.2, packages/RalphShared), shared by the compatibility
// tests.
//
// These are written exactly as the client declares them: required fields are non-optional, unknown keys are ignored,
// dates are plain strings. If our types stop decoding with them, the shipped app breaks.

/// `Session` of the client (list and status responses).
struct ClientSession: Codable, Equatable {
    let id: String
    var iteration: Int
    var total: Int?
    var hat: String?
    var elapsedSeconds: Int?
    var mode: String?
    var startedAt: String?
    var status: String?
    var triggerEvent: String?
    var availablePublishes: [String]?

    enum CodingKeys: String, CodingKey {
        case id
        case iteration
        case total
        case hat
        case elapsedSeconds = "elapsed_secs"
        case mode
        case startedAt = "started_at"
        case status
        case triggerEvent = "trigger_event"
        case availablePublishes = "publishes"
    }

    /// The client parses `started_at` with a fractional-seconds ISO 8601 formatter only.
    var startTime: Date? {
        guard let startedAt else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: startedAt)
    }
}

/// `PendingQuestion` of the client (`GET /api/robot/questions` → `{"questions":[…]}`).
struct ClientPendingQuestion: Decodable {
    let id: String
    let questionText: String
    let sessionId: String
    let askedAt: String
    let timeoutAt: String
    let iteration: UInt32
    let hat: String?

    enum CodingKeys: String, CodingKey {
        case id, iteration, hat
        case questionText = "question_text"
        case sessionId = "session_id"
        case askedAt = "asked_at"
        case timeoutAt = "timeout_at"
    }
}

struct ClientQuestionsResponse: Decodable {
    let questions: [ClientPendingQuestion]
}

/// `IterationItem` of the client.
struct ClientIterationItem: Decodable {
    let number: UInt32
    let hat: String?
    let startedAt: String
    let durationSecs: UInt64?

    enum CodingKeys: String, CodingKey {
        case number, hat
        case startedAt = "started_at"
        case durationSecs = "duration_secs"
    }
}

struct ClientIterationsResponse: Decodable {
    let iterations: [ClientIterationItem]
    let total: Int
}

/// The client reads only `content` of the scratchpad response.
struct ClientScratchpad: Decodable {
    let content: String
}

/// The client reads `{"error": …}` bodies to branch on prefixes.
struct ClientErrorBody: Decodable {
    let error: String
}

/// The client's tolerant `Event` decoder, which it applies to every SSE `data:` line (including our `end` frame).
struct ClientEvent: Decodable {
    let timestamp: Date
    let topic: String?
    let payload: String?
    let iteration: Int?
    let hat: String?
    let triggered: String?
    let type: String

    enum CodingKeys: String, CodingKey {
        case timestamp = "ts"
        case topic, payload, iteration, hat, triggered, type
    }

    /// Set when `ts` could not be parsed and the client fell back to `Date()`.
    let usedFallbackDate: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var fallback = false
        if let text = try? container.decode(String.self, forKey: .timestamp) {
            let fractional = ISO8601DateFormatter()
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let plain = ISO8601DateFormatter()
            plain.formatOptions = [.withInternetDateTime]
            if let date = fractional.date(from: text) ?? plain.date(from: text) {
                timestamp = date
            } else {
                timestamp = Date()
                fallback = true
            }
        } else {
            timestamp = Date()
            fallback = true
        }
        usedFallbackDate = fallback
        topic = try? container.decode(String.self, forKey: .topic)
        payload = try? container.decode(String.self, forKey: .payload)
        iteration = try? container.decode(Int.self, forKey: .iteration)
        hat = try? container.decode(String.self, forKey: .hat)
        triggered = try? container.decode(String.self, forKey: .triggered)
        type = (try? container.decode(String.self, forKey: .type)) ?? "event.published"
    }
}

/// The client's `BackpressureStatus` (bool or "pass" string; anything else is false).
struct ClientBackpressureStatus: Decodable {
    var testsPass: Bool
    var lintPass: Bool
    var typecheckPass: Bool

    enum CodingKeys: String, CodingKey {
        case testsPass = "tests"
        case lintPass = "lint"
        case typecheckPass = "typecheck"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func read(_ key: CodingKeys) -> Bool {
            if let b = try? c.decode(Bool.self, forKey: key) { return b }
            if let s = try? c.decode(String.self, forKey: key) { return s.lowercased() == "pass" }
            return false
        }
        testsPass = read(.testsPass)
        lintPass = read(.lintPass)
        typecheckPass = read(.typecheckPass)
    }
}
