import RalphAPI

/// The client side of `codex app-server` (JSON-RPC, one JSON object a line on stdio) as a value: each input — a line
/// Codex printed, a command of the conversation machine — returns a ``Step``: the ``AgentEvent``s it means, the lines
/// to write back, and whether to close Codex's stdin. No I/O, no clock: ``CodexSession`` carries the steps out, and
/// tests drive it with lines recorded from the real CLI.
///
/// Facts it relies on (codex-cli 0.147.0, see the README's Codex section): `initialize` then `initialized`; a thread
/// is opened with `thread/start` or, to go on with an earlier conversation, `thread/resume` (the thread id is the
/// conversation's session id); a message is a `turn/start`, whose turn reports `turn/started` … `turn/completed`;
/// items (`agentMessage`, `commandExecution`, `fileChange`, …) are announced with `item/started` and
/// `item/completed`; approvals are requests from the server that wait for `{"decision": …}`.
public struct CodexProtocol: Sendable {
    /// How the conversation's thread is opened, fixed when its process starts.
    public struct Settings: Sendable, Hashable {
        public var cwd: String
        public var model: String?
        /// `untrusted` (ask for every command but Codex's known-safe ones, and every patch), `on-request`, `never`.
        public var approvalPolicy: String
        /// `read-only`, `workspace-write` (needs bubblewrap on Linux) or `danger-full-access`.
        public var sandbox: String
        /// The thread to resume (the conversation's session id).
        public var resumeThreadID: String?
        /// Our version, told to Codex in `initialize`.
        public var clientVersion: String

        public init(cwd: String, model: String?, approvalPolicy: String, sandbox: String, resumeThreadID: String?, clientVersion: String) {
            self.cwd = cwd
            self.model = model
            self.approvalPolicy = approvalPolicy
            self.sandbox = sandbox
            self.resumeThreadID = resumeThreadID
            self.clientVersion = clientVersion
        }
    }

    /// What one input asks of the session.
    public struct Step: Sendable, Hashable {
        public var events: [AgentEvent] = []
        public var lines: [[UInt8]] = []
        /// Close Codex's stdin (it exits at once): the thread cannot be used.
        public var closeInput = false

        public init(events: [AgentEvent] = [], lines: [[UInt8]] = [], closeInput: Bool = false) {
            self.events = events
            self.lines = lines
            self.closeInput = closeInput
        }

        mutating func append(_ other: Step) {
            events += other.events
            lines += other.lines
            closeInput = closeInput || other.closeInput
        }
    }

    enum Phase: Sendable, Equatable {
        case initializing, openingThread, ready, closed
    }

    /// What a request of ours was, to read its response.
    enum Pending: Sendable, Equatable {
        case initialize
        case openThread(resuming: String?)
        case startTurn(uuid: String)
        case interrupt(requestID: String)
        /// `turn/steer` (a denial's message) and anything whose answer changes nothing.
        case ignore
    }

    /// The turn in flight: ours, named by the uuid the machine gave it.
    struct Turn: Sendable {
        var uuid: String
        /// Codex's id, from `turn/start`'s response or `turn/started`.
        var codexID: String?
        var started = false
        /// `last` of every `thread/tokenUsage/updated` of the turn, summed.
        var usage = TokenUsage()
        /// An interrupt asked for before Codex named the turn: sent once it does.
        var interruptWhenStarted: String?
    }

    /// The agent message being streamed, and the text already passed on: after a retry Codex streams the message again
    /// from its start, and what was already shown is not shown twice.
    struct OpenMessage: Sendable {
        var itemID: String
        var shown: String
        /// Text of the retried message still to match against ``shown`` before new text is passed on.
        var replaying: Substring?
    }

    let settings: Settings
    var phase = Phase.initializing
    var nextID = 0
    var pending: [Int: Pending] = [:]
    var threadID: String?
    /// Commands that arrived before the thread was open, or while a turn was in flight.
    var waiting: [AgentCommand] = []
    var turn: Turn?
    var message: OpenMessage?
    /// A model request is being retried: the next agent message may repeat what was shown.
    var retrying = false
    /// Pending approvals: our request id → Codex's JSON-RPC id.
    var approvals: [String: JSONValue] = [:]
    /// Tool inputs by item id, from `item/started` (an approval request names only the item).
    var toolInputs: [String: JSONValue] = [:]

    /// What the client calls itself in `initialize` (Codex sends it as the model requests' `originator`).
    static let clientName = "ralph_mobile"
    /// Notifications we do not read, so Codex does not send them.
    static let optedOut = ["account/rateLimits/updated", "remoteControl/status/changed", "thread/status/changed"]

    public init(settings: Settings) {
        self.settings = settings
    }

    // MARK: - Inputs

    /// The first line: `initialize`.
    public mutating func start() -> Step {
        let params: JSONValue = [
            "clientInfo": ["name": .string(Self.clientName), "title": "Ralph Mobile", "version": .string(settings.clientVersion)],
            "capabilities": ["optOutNotificationMethods": .array(Self.optedOut.map(JSONValue.string))],
        ]
        return Step(lines: [request(.initialize, "initialize", params)])
    }

    /// A line Codex printed.
    public mutating func receive(_ line: some Collection<UInt8>) -> Step {
        let bytes = Array(line)
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { return Step() }
        guard let message = JSONRPCMessage(line: bytes) else {
            return Step(events: [.notJSON(String(decoding: bytes.prefix(ClaudeStreamDecoder.notJSONPrefixBytes), as: UTF8.self))])
        }
        switch message {
        case .response(let id, let result): return responded(id, result: result, error: nil)
        case .error(let id, _, let text): return responded(id, result: nil, error: text)
        case .request(let id, let method, let params): return serverRequest(id: id, method: method, params: params)
        case .notification(let method, let params): return notified(method, params)
        }
    }

    /// A command of the conversation machine.
    public mutating func command(_ command: AgentCommand) -> Step {
        switch command {
        case .user(let text, let uuid):
            guard phase == .ready, turn == nil, let threadID else {
                waiting.append(command)
                return Step()
            }
            turn = Turn(uuid: uuid)
            message = nil
            retrying = false
            let input: JSONValue = [["type": "text", "text": .string(text)]]
            return Step(lines: [request(.startTurn(uuid: uuid), "turn/start", ["threadId": .string(threadID), "input": input])])
        case .allow(let requestID, _):
            guard let id = approvals.removeValue(forKey: requestID) else { return Step() }
            return Step(lines: [JSONRPCMessage.response(id: id, result: ["decision": "accept"])])
        case .deny(let requestID, let reason, let interrupt):
            guard let id = approvals.removeValue(forKey: requestID) else { return Step() }
            var step = Step()
            if interrupt {
                step.lines.append(JSONRPCMessage.response(id: id, result: ["decision": "cancel"]))
                return step
            }
            // Codex's answer has no message: a person's words go to the model as a steer of the turn, just before the
            // decline, so it reads them next to the refused call.
            if reason != AgentCommand.defaultDenial, let threadID, let turnID = turn?.codexID {
                let input: JSONValue = [["type": "text", "text": .string(reason)]]
                step.lines.append(request(.ignore, "turn/steer", ["threadId": .string(threadID), "expectedTurnId": .string(turnID), "input": input]))
            }
            step.lines.append(JSONRPCMessage.response(id: id, result: ["decision": "decline"]))
            return step
        case .interrupt(let requestID):
            guard var turn else {
                // A message still waiting for the thread is dropped before Codex sees it.
                if let index = waiting.firstIndex(where: { if case .user = $0 { true } else { false } }), case .user(_, let uuid) = waiting[index] {
                    waiting.remove(at: index)
                    return Step(events: [.lifecycle(commandUUID: uuid, state: "cancelled")])
                }
                return Step(events: [.controlResponse(requestID: requestID, success: false, error: "no turn is running")])
            }
            guard let turnID = turn.codexID, let threadID else {
                turn.interruptWhenStarted = requestID
                self.turn = turn
                return Step()
            }
            return Step(lines: [request(.interrupt(requestID: requestID), "turn/interrupt", ["threadId": .string(threadID), "turnId": .string(turnID)])])
        }
    }

    // MARK: - Responses to our requests

    mutating func responded(_ id: JSONValue, result: JSONValue?, error: String?) -> Step {
        guard let number = id.intValue, let what = pending.removeValue(forKey: number) else { return Step() }
        switch what {
        case .initialize:
            guard error == nil else { return fail("codex did not initialize: \(error ?? "")") }
            phase = .openingThread
            return Step(lines: [JSONRPCMessage.notification(method: "initialized"), openThread()])
        case .openThread(let resuming):
            if let error {
                if let resuming, Self.isLostThread(error) {
                    phase = .closed
                    return Step(events: [.sessionLost(reason: "codex has no thread \(resuming): \(error)")], closeInput: true)
                }
                return fail("codex could not open a thread: \(error)")
            }
            return threadOpened(result?.objectValue ?? JSONObject())
        case .startTurn(let uuid):
            guard var turn, turn.uuid == uuid else { return Step() }
            if let error {
                self.turn = nil
                var step = Step(events: [.result(Self.failed(uuid: uuid, threadID: threadID, "codex did not start the turn: \(error)"))])
                step.append(flushWaiting())
                return step
            }
            if turn.codexID == nil { turn.codexID = result?.objectValue?["turn"]?.objectValue?["id"]?.stringValue }
            self.turn = turn
            return Step()
        case .interrupt(let requestID):
            return Step(events: [.controlResponse(requestID: requestID, success: error == nil, error: error)])
        case .ignore:
            return Step()
        }
    }

    /// The thread is open: the session id and version go to the machine, then what waited is sent.
    mutating func threadOpened(_ result: JSONObject) -> Step {
        let thread = result["thread"]?.objectValue
        guard let id = thread?["id"]?.stringValue else { return fail("codex opened a thread without an id") }
        threadID = id
        phase = .ready
        let system = AgentSystem(
            subtype: "init", sessionID: id, model: result["model"]?.stringValue ?? settings.model,
            permissionMode: result["approvalPolicy"]?.stringValue ?? settings.approvalPolicy, version: thread?["cliVersion"]?.stringValue,
            capabilities: ["msg_lifecycle_v1"]
        )
        var step = Step(events: [.system(system)])
        step.append(flushWaiting())
        return step
    }

    /// Sends the commands that waited for the thread, or for the turn in flight to end, in order.
    mutating func flushWaiting() -> Step {
        var step = Step()
        while phase == .ready, turn == nil, !waiting.isEmpty {
            step.append(command(waiting.removeFirst()))
        }
        return step
    }

    /// The thread cannot be used: every message that waited fails with `reason`, and Codex is let go.
    mutating func fail(_ reason: String) -> Step {
        phase = .closed
        var step = Step(closeInput: true)
        var uuids: [String] = turn.map { [$0.uuid] } ?? []
        turn = nil
        for case .user(_, let uuid) in waiting { uuids.append(uuid) }
        waiting = []
        for uuid in uuids { step.events.append(.result(Self.failed(uuid: uuid, threadID: threadID, reason))) }
        if uuids.isEmpty { step.events.append(.other(type: "codex/failure", raw: .string(reason))) }
        return step
    }

    // MARK: - Helpers

    /// `thread/start`, or `thread/resume` of the conversation's thread; the policy and sandbox are always sent (Codex
    /// does not keep a thread's own on resume).
    mutating func openThread() -> [UInt8] {
        var params = JSONObject([
            ("cwd", .string(settings.cwd)), ("approvalPolicy", .string(settings.approvalPolicy)), ("sandbox", .string(settings.sandbox)),
        ])
        if let model = settings.model { params["model"] = .string(model) }
        if let resume = settings.resumeThreadID {
            params["threadId"] = .string(resume)
            return request(.openThread(resuming: resume), "thread/resume", .object(params))
        }
        return request(.openThread(resuming: nil), "thread/start", .object(params))
    }

    /// One of our requests as a line, remembered by its id.
    mutating func request(_ what: Pending, _ method: String, _ params: JSONValue) -> [UInt8] {
        let id = nextID
        nextID += 1
        pending[id] = what
        return JSONRPCMessage.request(id: id, method: method, params: params)
    }

    /// Codex's words for a thread it does not have.
    static func isLostThread(_ error: String) -> Bool {
        error.contains("no rollout found") || error.contains("invalid session id") || error.contains("thread not found")
    }

    /// A failed end of the turn `uuid`.
    static func failed(uuid: String, threadID: String?, _ reason: String) -> AgentTurnResult {
        AgentTurnResult(subtype: "error", isError: true, sessionID: threadID, errors: [reason], userMessageUUIDs: [uuid])
    }
}
