import Foundation
import RalphAPI

/// A stdin `user` line, as read.
struct UserMessage: Sendable {
    let line: JSONObject
    let received: Date

    init(line: JSONObject, received: Date = Date()) {
        self.line = line
        self.received = received
    }

    /// The line's `uuid`, when it carried one: then the CLI reports what becomes of it (`command_lifecycle`).
    var uuid: String? { line["uuid"]?.stringValue }

    /// The text of the message: a string content, or its text blocks joined with newlines.
    var text: String {
        switch line["message"]?.objectValue?["content"] {
        case .string(let text)?:
            return text
        case .array(let blocks)?:
            return blocks.compactMap { $0.objectValue?["type"]?.stringValue == "text" ? $0.objectValue?["text"]?.stringValue : nil }
                .joined(separator: "\n")
        default:
            return ""
        }
    }
}

/// A sub-agent the `agent` command launched in the background. When it is due, the CLI reports it finished and runs
/// a turn of its own about it.
struct BackgroundAgent: Sendable {
    let taskID: String
    let toolUseID: String
    let description: String
    /// What the sub-agent reports, and what the CLI's own turn then says.
    let text: String
    /// How long after the launching turn's result it finishes.
    let seconds: Double
    var due = Date.distantFuture
}

/// What the turn loop does next.
enum Work {
    /// A turn for these user messages (one, or all that queued up while the previous turn ran).
    case user([UserMessage])
    /// The CLI's own turn after a background agent finished.
    case agent(BackgroundAgent)
}

/// What arrives on stdin, shared between the stdin reader thread and the turn thread (the main thread).
///
/// All state is guarded by `condition`, which is also signalled whenever something arrives, so the turn thread can
/// block for its next work, a permission decision, or an interrupt (while sleeping). Like the real CLI, a user
/// message that arrives while nothing runs starts its turn at once (`queued` then `started`); one that arrives during
/// a turn waits, and all waiting messages make one turn together.
final class Inbox: @unchecked Sendable {
    /// How a wait for a permission decision ended.
    enum Decision {
        case response(JSONObject)
        case interrupted
        case endOfInput
    }

    private let condition = NSCondition()
    private let output: Output
    private let sessionID: String
    private var busy = false
    /// Messages a turn was started with by the reader (nothing was running when they came).
    private var taken: [UserMessage]?
    private var queue: [UserMessage] = []
    private var agents: [BackgroundAgent] = []
    private var endOfInput = false
    private var interrupted = false
    private var responses: [String: JSONObject] = [:]
    /// The `can_use_tool` request the turn waits for; an interrupt cancels it.
    private var pendingRequest: String?
    private var settings: (model: String, permissionMode: String)

    init(output: Output, sessionID: String, model: String, permissionMode: String) {
        self.output = output
        self.sessionID = sessionID
        settings = (model, permissionMode)
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    private func lifecycle(_ message: UserMessage, _ state: String) {
        if let uuid = message.uuid { output.emit(Lines.lifecycle(uuid, state, sessionID: sessionID), paced: false) }
    }

    /// The current model and permission mode (changed by `set_model`, `set_permission_mode` and `setMode` updates).
    var current: (model: String, permissionMode: String) { locked { settings } }

    func setModel(_ model: String) { locked { settings.model = model } }
    func setPermissionMode(_ mode: String) { locked { settings.permissionMode = mode } }

    // MARK: Reader side

    func receiveUser(_ message: UserMessage) {
        locked {
            lifecycle(message, "queued")
            if !busy && taken == nil && queue.isEmpty {
                busy = true
                taken = [message]
                lifecycle(message, "started")
            } else {
                queue.append(message)
            }
            condition.broadcast()
        }
    }

    func receiveResponse(_ response: JSONObject, requestID: String) {
        locked {
            responses[requestID] = response
            condition.broadcast()
        }
    }

    /// Interrupts the running turn and answers `requestID` with the uuids still queued (they run afterwards). A
    /// pending permission request is cancelled first (`control_cancel_request`).
    func interrupt(requestID: JSONValue) {
        locked {
            if busy {
                interrupted = true
                if let pendingRequest {
                    output.emit(["type": "control_cancel_request", "request_id": .string(pendingRequest)], paced: false)
                }
            }
            output.emit(Lines.controlSuccess(requestID, response: ["still_queued": Lines.strings(queue.compactMap(\.uuid))]), paced: false)
            condition.broadcast()
        }
    }

    func receiveEndOfInput() {
        locked {
            endOfInput = true
            condition.broadcast()
        }
    }

    // MARK: Turn side

    /// Blocks until there is something to do: the messages a turn starts with (reporting them `started`), or a
    /// background agent that is due, whichever became ready first. Nil at end of input once no agent is left.
    func nextWork() -> Work? {
        locked {
            while true {
                if let taken {
                    self.taken = nil
                    return .user(taken)
                }
                let now = Date()
                let due = agents.indices.filter { agents[$0].due <= now }.min { agents[$0].due < agents[$1].due }
                if let due, queue.first.map({ agents[due].due < $0.received }) ?? true {
                    busy = true
                    return .agent(agents.remove(at: due))
                }
                if !queue.isEmpty {
                    busy = true
                    let batch = queue
                    queue = []
                    for message in batch { lifecycle(message, "started") }
                    return .user(batch)
                }
                if endOfInput && agents.isEmpty { return nil }
                if let next = agents.map(\.due).min() {
                    _ = condition.wait(until: next)
                } else {
                    condition.wait()
                }
            }
        }
    }

    /// Takes the messages queued so far into the running turn (the CLI adds them to its next model request).
    func drainQueue() -> [UserMessage] {
        locked {
            let batch = queue
            queue = []
            return batch
        }
    }

    /// Lets an agent's own turn run `agent.seconds` from now.
    func schedule(_ agent: BackgroundAgent) {
        locked {
            var agent = agent
            agent.due = Date(timeIntervalSinceNow: agent.seconds)
            agents.append(agent)
            condition.broadcast()
        }
    }

    func endTurn() {
        locked {
            busy = false
            interrupted = false
            pendingRequest = nil
        }
    }

    var isInterrupted: Bool { locked { interrupted } }

    /// Sleeps up to `seconds`; false when interrupted first.
    func sleep(_ seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: max(0, seconds))
        return locked {
            while !interrupted && Date() < deadline { _ = condition.wait(until: deadline) }
            return !interrupted
        }
    }

    /// Prints the `can_use_tool` request `line` and blocks until the `control_response` for `requestID` arrives, the
    /// turn is interrupted, or stdin ends. The line is written under the lock, so an interrupt that follows it always
    /// finds the request pending (and cancels it).
    func ask(_ requestID: String, line: JSONValue) -> Decision {
        locked {
            pendingRequest = requestID
            defer { pendingRequest = nil }
            output.emit(line)
            while true {
                if let response = responses.removeValue(forKey: requestID) { return .response(response) }
                if interrupted { return .interrupted }
                if endOfInput { return .endOfInput }
                condition.wait()
            }
        }
    }
}
