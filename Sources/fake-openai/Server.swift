import Hummingbird
import ModelAPIDouble
import RalphAPI

/// Routes, checks and answers requests.
struct Server: Sendable {
    /// The largest request body read (Codex sends whole conversations).
    static let maxBody = 64 * 1024 * 1024

    /// The models `GET /v1/models` lists.
    static let models = ["gpt-5.5", "gpt-5.4", "gpt-5.4-mini"]

    let log: JSONLinesLog
    let attempts: Attempts

    /// Answers one request and logs it.
    func respond(_ request: Request) async -> Response {
        var request = request
        let requestID = Identifier.make("req_", length: 32)
        var entry = LogEntry(method: request.method.rawValue, path: request.uri.path)
        let (response, pause) = await answer(&request, requestID: requestID, entry: &entry)
        log.append(entry.json)
        if pause > 0 { try? await Task.sleep(for: .milliseconds(pause)) }
        return response
    }

    /// The response, and the pause (`wait`) before it. Fills in `entry`.
    private func answer(_ request: inout Request, requestID: String, entry: inout LogEntry) async -> (Response, Int) {
        func failed(_ error: OpenAIError) -> (Response, Int) {
            entry.status = error.status
            return (error.response(requestID: requestID), 0)
        }
        let path = request.uri.path
        if request.method == .get, path == "/v1/models" {
            return (Answer.json(200, Self.modelList, headers: [.openAIRequestID: requestID]), 0)
        }
        guard request.method == .post, path == "/v1/responses" else {
            return failed(.invalidURL(method: request.method.rawValue, path: path))
        }
        let body: JSONObject
        switch await Self.body(of: &request) {
        case .success(let object): body = object
        case .failure(let error): return failed(error)
        }
        guard let model = body["model"]?.stringValue, !model.isEmpty else { return failed(.missing("model")) }
        guard let input = body["input"], input.stringValue != nil || input.arrayValue != nil else { return failed(.missing("input")) }
        let stream = body["stream"]?.boolValue ?? false
        let conversation = Conversation(input: input, tools: body["tools"])
        entry.model = model
        entry.stream = stream
        entry.script = conversation.prompt
        entry.tools = conversation.tools
        entry.last = conversation.last

        let prompt = conversation.prompt ?? ""
        entry.step = conversation.step
        let attempt = attempts.next(prompt: prompt, step: conversation.step)
        entry.attempt = attempt
        let step: Step
        let reply: Reply
        do throws(ScriptError) {
            step = try Script.plan(for: prompt).step(conversation.step, turn: conversation.turn)
        } catch {
            return failed(.invalidRequest("fake-openai \(error.message)"))
        }
        if let scripted = step.error {
            return (failed(OpenAIError(scripted)).0, step.waitMilliseconds)
        }
        if let failure = step.failure, attempt <= failure.count {
            return (failed(OpenAIError(failure.error)).0, step.waitMilliseconds)
        }
        do throws(OpenAIError) {
            let encrypted = body["include"]?.arrayValue?.contains("reasoning.encrypted_content") ?? false
            reply = try Reply(step: step, model: model, tools: conversation.tools, encryptedReasoning: encrypted)
        } catch {
            return (failed(error).0, step.waitMilliseconds)
        }
        let headers: HTTPFields = [.openAIRequestID: requestID]
        let response =
            stream
            ? Answer.events(
                step.ending == .complete ? reply.events : reply.openingEvents, delayMilliseconds: step.delayMilliseconds,
                ending: step.ending, request: request, headers: headers)
            : Answer.whole(reply.finished, ending: step.ending, request: request, headers: headers)
        return (response, step.waitMilliseconds)
    }

    /// The request body as a JSON object, or the error the real API gives.
    private static func body(of request: inout Request) async -> Result<JSONObject, OpenAIError> {
        let bytes: [UInt8]
        do {
            bytes = Array(try await request.collectBody(upTo: maxBody).readableBytesView)
        } catch {
            return .failure(OpenAIError(status: 413, message: "Request too large."))
        }
        guard let parsed = try? JSONParser.parse(bytes) else {
            return .failure(
                .invalidRequest(
                    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"
                ))
        }
        guard case .object(let object) = parsed else {
            return .failure(.invalidRequest("Invalid type for request body: expected an object."))
        }
        return .success(object)
    }

    /// `GET /v1/models`: `{"object": "list", "data": [{"id", "object": "model", "created", "owned_by"}…]}`.
    static var modelList: JSONValue {
        [
            "object": "list",
            "data": .array(models.map { ["id": .string($0), "object": "model", "created": 1_767_225_600, "owned_by": "openai"] }),
        ]
    }
}
