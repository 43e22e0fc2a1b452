import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RalphAPI

/// What the judge said about the agent's latest reply.
public struct JudgeVerdict: Sendable, Hashable {
    /// 0 – 1 (clamped): how sure the judge is that the task is complete.
    public var confidence: Double
    public var complete: Bool
    /// What to tell the agent next, when the judge wrote it (trimmed; never empty).
    public var nextPrompt: String?
    public var reason: String?

    public init(confidence: Double, complete: Bool, nextPrompt: String? = nil, reason: String? = nil) {
        self.confidence = min(1, max(0, confidence))
        self.complete = complete
        self.nextPrompt = nextPrompt
        self.reason = reason
    }
}

/// Why the judge gave no verdict. The loop then falls back to its rules; none of these is fatal.
public enum JudgeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No complete answer within `timeout_secs`.
    case timedOut
    /// No connection (refused, unknown host, bad URL, reset).
    case unreachable(String)
    /// A status other than 2xx; the body is truncated.
    case http(status: Int, body: String)
    /// An answer without a usable JSON verdict.
    case badAnswer(String)
    /// `api_key_ref` names an environment variable the server does not have (the name, never a key).
    case missingKey(String)

    public var description: String {
        switch self {
        case .timedOut: "the judge did not answer in time"
        case .unreachable(let why): "the judge could not be reached: \(why)"
        case .http(let status, let body): "the judge answered HTTP \(status)" + (body.isEmpty ? "" : ": \(body)")
        case .badAnswer(let why): "the judge's answer could not be used: \(why)"
        case .missingKey(let name): "the environment variable \(name) that should hold the judge's API key is not set"
        }
    }
}

/// An optional judge of an auto-reply loop: any OpenAI-compatible chat completions endpoint, asked whether the coding
/// agent finished its task and what to tell it next.
///
/// It POSTs to `<base_url>/chat/completions` with `temperature: 0` and `response_format: json_object`, and reads a
/// JSON object `{confidence, complete, next_prompt, reason}` from `choices[0].message.content` (also when fenced or
/// surrounded by prose). The key is read from the environment variable named by `api_key_ref` and sent as a Bearer
/// token; it is never stored or logged. Every failure is a ``JudgeError``: the caller falls back to its rules.
public struct AutoReplyJudge: Sendable {
    public static let defaultTimeout: Double = 20
    /// Longest text (UTF-8 bytes) of the task or the latest reply put in the prompt.
    static let maxTextBytes = 8 * 1024
    /// Longest text of each earlier reply, and how many of them are sent.
    static let maxHistoryBytes = 2 * 1024
    static let maxHistory = 3
    /// Longest error body kept in ``JudgeError/http(status:body:)``, and longest answer accepted.
    static let maxErrorBody = 2 * 1024
    static let maxAnswerBytes = 4 * 1024 * 1024

    /// The HTTP client judges use unless given another. Unlike `HTTPClient.shared` it does not retry a refused
    /// connection until the deadline, so an endpoint that is down is reported as ``JudgeError/unreachable(_:)`` at once.
    public static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    public let settings: JudgeSettings
    private let environment: [String: String]
    private let httpClient: HTTPClient

    /// - Parameter environment: the server's environment (`ProcessInfo.processInfo.environment`), where the key is.
    public init(settings: JudgeSettings, environment: [String: String], httpClient: HTTPClient = AutoReplyJudge.sharedHTTPClient) {
        self.settings = settings
        self.environment = environment
        self.httpClient = httpClient
    }

    /// Seconds allowed for the whole exchange.
    public var timeout: Double {
        guard let t = settings.timeoutSecs, t.isFinite, t > 0 else { return Self.defaultTimeout }
        return t
    }

    /// `<base_url>/chat/completions`.
    public var endpoint: String {
        var base = settings.baseUrl.trimmingCharacters(in: .whitespacesAndNewlines)
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/chat/completions"
    }

    /// Asks the judge about the latest reply.
    ///
    /// - Parameters:
    ///   - reply: the agent's latest reply.
    ///   - task: the conversation's first user message, when known.
    ///   - history: earlier replies, oldest first (only the last few are sent).
    public func judge(reply: String, task: String?, history: [String]) async throws(JudgeError) -> JudgeVerdict {
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        if let name = settings.apiKeyRef?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty {
            guard let key = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !key.isEmpty else {
                throw .missingKey(name)
            }
            request.headers.add(name: "Authorization", value: "Bearer \(key)")
        }
        request.body = .bytes(ByteBuffer(bytes: JSONWriter.bytes(requestBody(reply: reply, task: task, history: history))))

        let (status, body) = try await exchange(request)
        guard (200..<300).contains(status) else {
            throw .http(status: status, body: Self.truncatedHead(String(decoding: body, as: UTF8.self), Self.maxErrorBody))
        }
        return try Self.verdict(fromResponse: body)
    }

    // MARK: The request

    /// The chat completions request.
    func requestBody(reply: String, task: String?, history: [String]) -> JSONValue {
        [
            "model": .string(settings.model),
            "temperature": 0,
            "response_format": ["type": "json_object"],
            "messages": [
                ["role": "system", "content": .string(Self.instructions)],
                ["role": "user", "content": .string(Self.userMessage(reply: reply, task: task, history: history))],
            ],
        ]
    }

    static let instructions = """
        You judge the work of an autonomous coding agent (Claude Code) that a person gave a task. After each of its \
        replies you decide whether the agent has finished the whole task, and if it has not, what it should be told \
        next to make progress.

        Answer ONLY with a JSON object, without any other text:
        {"confidence": <number from 0 to 1: how sure you are that the task is complete>, "complete": <true or false>, \
        "next_prompt": "<if not complete: the next instruction for the agent, short and concrete>", \
        "reason": "<one sentence explaining your judgement>"}

        Be strict: a plan, a partial result, failing or unrun tests, or a question to the person is not complete. \
        If the agent needs a decision or credentials only the person can give, say so in "reason" and set \
        "complete" to false.
        """

    static func userMessage(reply: String, task: String?, history: [String]) -> String {
        var parts: [String] = []
        if let task, !task.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            parts.append("## The task (the person's first message)\n\n" + truncatedHead(task, maxTextBytes))
        } else {
            parts.append("## The task\n\n(unknown: judge from the replies)")
        }
        let earlier = history.suffix(maxHistory)
        if !earlier.isEmpty {
            var section = "## Earlier replies of the agent (oldest first)"
            for (i, text) in earlier.enumerated() {
                section += "\n\n### Reply \(i + 1)\n\n" + truncatedTail(text, maxHistoryBytes)
            }
            parts.append(section)
        }
        parts.append("## The agent's latest reply\n\n" + truncatedTail(reply, maxTextBytes))
        parts.append("Is the task complete? Answer with the JSON object only.")
        return parts.joined(separator: "\n\n")
    }

    /// The first `limit` bytes of `text` (on a character boundary), marked when cut.
    static func truncatedHead(_ text: String, _ limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var end = text.startIndex, bytes = 0
        while end < text.endIndex {
            bytes += text[end].utf8.count
            if bytes > limit { break }
            end = text.index(after: end)
        }
        return String(text[..<end]) + "\n[… truncated]"
    }

    /// The last `limit` bytes of `text` (on a character boundary), marked when cut: a reply ends with its conclusion.
    static func truncatedTail(_ text: String, _ limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var start = text.endIndex, bytes = 0
        while start > text.startIndex {
            let previous = text.index(before: start)
            bytes += text[previous].utf8.count
            if bytes > limit { break }
            start = previous
        }
        return "[truncated …]\n" + String(text[start...])
    }

    // MARK: The exchange

    /// Sends the request and reads the whole answer within ``timeout``.
    private func exchange(_ request: HTTPClientRequest) async throws(JudgeError) -> (Int, [UInt8]) {
        let seconds = timeout
        let client = httpClient
        let limit = Self.maxAnswerBytes
        let nanoseconds = Int64(min(seconds, 86_400) * 1_000_000_000)
        let outcome: Result<(Int, [UInt8]), JudgeError> = await withTaskGroup(of: Result<(Int, [UInt8]), JudgeError>?.self) { group in
            group.addTask {
                do {
                    let response = try await client.execute(request, deadline: .now() + .nanoseconds(nanoseconds))
                    let buffer = try await response.body.collect(upTo: limit)
                    return .success((Int(response.status.code), Array(buffer.readableBytesView)))
                } catch {
                    return .failure(Self.classify(error))
                }
            }
            group.addTask {
                // The deadline of `execute` ends with the response head; this one also covers the body.
                try? await Task.sleep(nanoseconds: UInt64(nanoseconds))
                return Task.isCancelled ? nil : .failure(.timedOut)
            }
            defer { group.cancelAll() }
            while let next = await group.next() {
                if let next { return next }
            }
            return .failure(.timedOut)
        }
        return try outcome.get()
    }

    static func classify(_ error: any Error) -> JudgeError {
        if let error = error as? HTTPClientError {
            if [.deadlineExceeded, .readTimeout, .writeTimeout, .cancelled].contains(error) { return .timedOut }
            return .unreachable("\(error)")
        }
        if error is CancellationError { return .timedOut }
        if error is NIOTooManyBytesError { return .badAnswer("the answer is larger than \(maxAnswerBytes) bytes") }
        return .unreachable(String(describing: error))
    }

    // MARK: The answer

    /// Reads the verdict from a chat completions response body.
    static func verdict(fromResponse body: [UInt8]) throws(JudgeError) -> JudgeVerdict {
        let response: JSONValue
        do { response = try JSONParser.parse(body) } catch { throw .badAnswer("the response is not JSON: \(error)") }
        guard case .array(let choices)? = response.objectValue?["choices"], let first = choices.first?.objectValue,
            let message = first["message"]?.objectValue
        else { throw .badAnswer("the response has no choices[0].message") }
        let content: String
        switch message["content"] {
        case .string(let text)?: content = text
        case .array(let parts)?:
            // Some servers answer with content parts.
            content = parts.compactMap { $0.objectValue?["text"]?.stringValue }.joined()
        default: throw .badAnswer("choices[0].message.content is not text")
        }
        return try verdict(fromContent: content)
    }

    /// Reads the verdict from the model's text: a JSON object, possibly fenced or with prose around it.
    static func verdict(fromContent content: String) throws(JudgeError) -> JudgeVerdict {
        guard let objectText = firstJSONObject(in: content) else {
            throw .badAnswer("no JSON object in the answer: \(truncatedHead(content, 200))")
        }
        let object: JSONObject
        do {
            guard let o = try JSONParser.parse(objectText).objectValue else { throw JudgeError.badAnswer("not an object") }
            object = o
        } catch {
            throw .badAnswer("the JSON object in the answer is invalid: \(truncatedHead(objectText, 200))")
        }
        let confidence: Double
        switch object["confidence"] {
        case let value? where value.doubleValue != nil: confidence = value.doubleValue!
        case .string(let text)?:
            guard let d = Double(text.trimmingCharacters(in: .whitespaces)) else { throw .badAnswer("confidence is not a number: \(text)") }
            confidence = d
        default: throw .badAnswer("the answer has no numeric confidence")
        }
        guard confidence.isFinite else { throw .badAnswer("confidence is not finite") }
        let clamped = min(1, max(0, confidence))
        let complete: Bool
        switch object["complete"] {
        case .bool(let b)?: complete = b
        case .string(let s)?: complete = s.lowercased() == "true"
        default: complete = clamped >= 0.5
        }
        func text(_ key: String) -> String? {
            guard let s = object[key]?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !s.isEmpty else { return nil }
            return s
        }
        return JudgeVerdict(confidence: clamped, complete: complete, nextPrompt: text("next_prompt") ?? text("nextPrompt"), reason: text("reason"))
    }

    /// The first balanced `{…}` in `text` (braces inside JSON strings are skipped), or nil.
    static func firstJSONObject(in text: String) -> String? {
        let bytes = Array(text.utf8)
        var searchFrom = 0
        while let start = bytes[searchFrom...].firstIndex(of: UInt8(ascii: "{")) {
            var depth = 0, inString = false, escaped = false
            var i = start
            while i < bytes.count {
                let b = bytes[i]
                if inString {
                    if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                } else if b == UInt8(ascii: "\"") {
                    inString = true
                } else if b == UInt8(ascii: "{") {
                    depth += 1
                } else if b == UInt8(ascii: "}") {
                    depth -= 1
                    if depth == 0 {
                        let candidate = String(decoding: bytes[start...i], as: UTF8.self)
                        if (try? JSONParser.parse(candidate))?.objectValue != nil { return candidate }
                        break
                    }
                }
                i += 1
            }
            searchFrom = start + 1
            if searchFrom >= bytes.count { break }
        }
        return nil
    }
}
