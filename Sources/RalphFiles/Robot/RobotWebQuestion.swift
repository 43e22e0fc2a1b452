import Foundation
import RalphAPI

/// A question ralph asks in RObot web mode (`.ralph/api/robot-question.json`), as far as answering it needs.
///
/// ralph writes the file atomically when an agent emits `human.interact`, then polls `robot-response.json` for an
/// answer carrying the same `id`, `loop_id` and `response_token`.
public struct RobotWebQuestion: Sendable, Hashable {
    public var id: Int
    public var responseToken: String
    public var loopID: String
    /// `payload_json.question` when there is one, else `payload` as written.
    public var text: String
    public var hat: String?
    public var iteration: Int?
    /// `timestamp` parsed.
    public var askedAt: Date?
    /// `timeout_seconds` (0: ralph waits forever).
    public var timeoutSeconds: Int?

    /// Reads the question's JSON; nil when it is not a question (no numeric `id`, no `response_token` or `loop_id`).
    public init?(json: JSONValue) {
        guard case .object(let o) = json, let id = o["id"]?.intValue, let token = o["response_token"]?.stringValue, !token.isEmpty,
            let loop = o["loop_id"]?.stringValue, !loop.isEmpty
        else { return nil }
        self.id = id
        responseToken = token
        loopID = loop
        let payload = o["payload"]?.stringValue
        if case .object(let p)? = o["payload_json"], let question = p["question"]?.stringValue {
            text = question
        } else {
            text = payload ?? ""
        }
        hat = o["hat"]?.stringValue
        iteration = o["iteration"]?.intValue
        askedAt = o["timestamp"]?.stringValue.flatMap(Timestamp.parse)
        timeoutSeconds = o["timeout_seconds"]?.intValue
    }

    /// The `robot-response.json` that answers it, as ralph matches it.
    public func response(_ text: String, at date: Date) -> JSONValue {
        .object(
            JSONObject([
                ("id", .int(id)), ("loop_id", .string(loopID)), ("response_token", .string(responseToken)), ("response", .string(text)),
                ("timestamp", .string(Timestamp.format(date))),
            ])
        )
    }
}

/// What RObot's web mode shows in a state directory's `api/`: the waiting question and the latest check-in.
public struct RobotWebFiles: Sendable, Hashable {
    public var question: RobotWebQuestion?
    public var checkin: RobotCheckin?

    public init(question: RobotWebQuestion? = nil, checkin: RobotCheckin? = nil) {
        self.question = question
        self.checkin = checkin
    }

    /// Reads both files of `stateDirectory`'s `api/` without following links (as liveness evidence is read). A file that
    /// is missing, half-written or not the expected shape counts as absent: ralph replaces them atomically, so the next
    /// change notices the complete one.
    public static func read(stateDirectory: String) -> RobotWebFiles {
        RobotWebFiles(
            question: object(RalphLayout.robotQuestion(stateDirectory: stateDirectory)).flatMap(RobotWebQuestion.init(json:)),
            checkin: object(RalphLayout.robotCheckin(stateDirectory: stateDirectory)).flatMap(checkin(json:))
        )
    }

    static func object(_ path: String) -> JSONValue? {
        do {
            guard let file = try RunDiscovery.fileSystem.readFile(path, limit: 1 << 20, links: .refused) else { return nil }
            return try JSONParser.parse(file.bytes)
        } catch {
            return nil
        }
    }

    /// The check-in's fields (`context` flattened).
    public static func checkin(json: JSONValue) -> RobotCheckin? {
        guard case .object(let o) = json else { return nil }
        var context = JSONObject()
        if case .object(let c)? = o["context"] { context = c }
        return RobotCheckin(
            iteration: o["iteration"]?.intValue, elapsedSeconds: o["elapsed_seconds"]?.intValue, loopId: o["loop_id"]?.stringValue,
            timestamp: o["timestamp"]?.stringValue, currentHat: context["current_hat"]?.stringValue, openTasks: context["open_tasks"]?.intValue,
            closedTasks: context["closed_tasks"]?.intValue, cumulativeCost: context["cumulative_cost"]?.doubleValue
        )
    }
}
