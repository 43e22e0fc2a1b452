import Hummingbird
import ModelAPIDouble
import RalphAPI

/// Routes, checks and answers requests.
struct Server: Sendable {
    /// The largest request body read (the CLI sends whole conversations).
    static let maxBody = 64 * 1024 * 1024

    let log: JSONLinesLog
    let attempts: Attempts

    /// Answers one request and logs it.
    func respond(_ request: Request) async -> Response {
        var request = request
        let requestID = Identifier.make("req_")
        var entry = LogEntry(path: request.uri.path)
        entry.retryCount = request.headers[.stainlessRetryCount].flatMap { Int($0) }
        let (response, pause) = await answer(&request, requestID: requestID, entry: &entry)
        log.append(entry.json)
        if pause > 0 { try? await Task.sleep(for: .milliseconds(pause)) }
        return response
    }

    /// The response, and the pause (`wait`) before it. Fills in `entry`.
    private func answer(_ request: inout Request, requestID: String, entry: inout LogEntry) async -> (Response, Int) {
        func failed(_ error: APIError) -> (Response, Int) {
            entry.status = error.status
            return (error.response(requestID: requestID), 0)
        }
        let path = request.uri.path
        guard request.method == .post, path == "/v1/messages" || path == "/v1/messages/count_tokens" else {
            return failed(.notFound)
        }
        guard request.headers[.apiKey] != nil || request.headers[.authorization] != nil else {
            return failed(.unauthenticated)
        }
        let bytes: [UInt8]
        do {
            bytes = Array(try await request.collectBody(upTo: Self.maxBody).readableBytesView)
        } catch {
            return failed(APIError(status: 413))
        }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            return failed(.invalidRequest("The request body is not valid JSON: \(error)"))
        }
        guard case .object(let body) = parsed else {
            return failed(.invalidRequest("The request body must be a JSON object"))
        }
        guard let model = body["model"]?.stringValue, !model.isEmpty else {
            return failed(.invalidRequest("model: Field required"))
        }
        guard case .array(let messages)? = body["messages"] else {
            return failed(.invalidRequest("messages: Field required"))
        }
        let stream = body["stream"]?.boolValue ?? false
        let conversation = Conversation(messages: messages)
        entry.model = model
        entry.stream = stream
        entry.script = conversation.prompt
        entry.last = conversation.last

        if path == "/v1/messages/count_tokens" {
            return (Wire.json(200, ["input_tokens": .int(bytes.count / 4)], requestID: requestID), 0)
        }
        let prompt = conversation.prompt ?? ""
        entry.step = conversation.step
        let attempt = attempts.next(prompt: prompt, step: conversation.step)
        entry.attempt = attempt
        let step: Step
        do {
            step = try Script.plan(for: prompt).step(conversation.step, turn: conversation.turn)
        } catch {
            return failed(.invalidRequest("fake-anthropic \(error.message)"))
        }
        if let scripted = step.error {
            return (failed(APIError(scripted)).0, step.waitMilliseconds)
        }
        if let failure = step.failure, attempt <= failure.count {
            return (failed(APIError(failure.error)).0, step.waitMilliseconds)
        }
        let reply = Reply(step: step, model: model)
        let headers: HTTPFields = [.requestID: requestID]
        let response =
            stream
            ? Answer.events(
                step.ending == .complete ? reply.events : reply.openingEvents, delayMilliseconds: step.delayMilliseconds,
                ending: step.ending, request: request, headers: headers)
            : Answer.whole(reply.message, ending: step.ending, request: request, headers: headers)
        return (response, step.waitMilliseconds)
    }
}
