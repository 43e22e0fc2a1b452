import Foundation
import Hummingbird
import Logging
import NIOCore
import RalphAPI
import ServiceLifecycle

/// Conversations with an agent CLI (`design/CHAT.md`): REST, the conversation event stream, and approvals.
struct ConversationRoutes {
    let chat: ChatService
    let watchdog: StreamWatchdog
    let hosts: HostRegistry
    /// Where resumes of conversation streams are counted.
    let metrics: ServerMetrics

    func register(on routes: Routes) {
        routes.viewer.get("/api/conversations") { request, context in
            let query = request.uri.queryParameters
            let limit = try Self.limit(query["limit"].map(String.init), default: 30)
            let pinned = try Self.bool(query["pinned"].map(String.init), name: "pinned")
            let archived = try Self.bool(query["archived"].map(String.init), name: "archived") ?? false
            let cursor = query["cursor"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            var page = try await chat.list(limit: limit, cursor: cursor, pinned: pinned, includeArchived: archived)
            page.items = page.items.map(hosts.stamp)
            return JSONResponse.make(page)
        }
        routes.operator.post("/api/conversations") { request, context in
            let body = try await request.decode(as: CreateConversationRequest.self, context: context)
            // Another host's are sent there (``ClusterForwardMiddleware``): what reaches here is for this one.
            guard try hosts.resolveRequested(body.host) == hosts.id else { throw APIError.invalidBody("host '\(body.host ?? "")' is not this server") }
            let conversation = hosts.stamp(try await chat.create(body))
            var response = JSONResponse.make(conversation, status: .created)
            response.headers[.location] = "/api/conversations/\(conversation.id)"
            return response
        }
        routes.viewer.get("/api/conversations/{id}") { _, context in
            return JSONResponse.make(hosts.stamp(try await chat.conversation(Self.id(context))))
        }
        routes.operator.patch("/api/conversations/{id}") { request, context in
            let body = try await request.decode(as: PatchConversationRequest.self, context: context)
            return JSONResponse.make(hosts.stamp(try await chat.patch(Self.id(context), body)))
        }
        routes.operator.delete("/api/conversations/{id}") { _, context in
            let id = try Self.id(context)
            try await chat.delete(id)
            return JSONResponse.make(ConversationRemoved(id: id))
        }
        routes.viewer.get("/api/conversations/{id}/messages") { request, context in
            let query = request.uri.queryParameters
            let limit = try Self.limit(query["limit"].map(String.init), default: 50)
            let before = query["before"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            return JSONResponse.make(try await chat.messages(Self.id(context), before: before, limit: limit))
        }
        routes.operator.post("/api/conversations/{id}/messages") { request, context in
            let id = try Self.id(context)
            let body = try await request.decode(as: SendMessageRequest.self, context: context)
            let sent = try await chat.send(id, body)
            // The turn runs long after this request: its id, logged with the request's, ties the two together.
            context.logger.info("conversation \(id): turn \(sent.turnId) queued", metadata: ["turn_id": "\(sent.turnId)"])
            return JSONResponse.make(sent, status: .accepted)
        }
        routes.operator.post("/api/conversations/{id}/interrupt") { _, context in
            return JSONResponse.make(try await chat.interrupt(Self.id(context)), status: .accepted)
        }
        routes.viewer.get("/api/conversations/{id}/events") { request, context in try await events(request, context) }
        routes.operator.delete("/api/conversations/{id}/session-rules/{rule}") { _, context in
            let id = try Self.id(context)
            let rule = context.parameters.get("rule") ?? ""
            return JSONResponse.make(try await chat.revokeRule(id, ruleID: rule))
        }

        routes.viewer.get("/api/approvals") { request, context in
            let query = request.uri.queryParameters
            var state: ApprovalState? = .pending
            if let raw = query["state"].map(String.init) {
                if raw == "all" {
                    state = nil
                } else {
                    guard let parsed = ApprovalState(rawValue: raw) else {
                        throw APIError.invalidParameter("state must be pending, allowed, denied, cancelled or all, got '\(raw.prefix(40))'")
                    }
                    state = parsed
                }
            }
            let conversation = query["conversation"].map(String.init)
            return JSONResponse.make(ApprovalList(approvals: try await chat.approvals(state: state, conversationID: conversation)))
        }
        routes.operator.post("/api/approvals/{id}") { request, context in
            let id = context.parameters.get("id") ?? ""
            let body = try await request.decode(as: ApprovalDecisionRequest.self, context: context)
            return JSONResponse.make(try await chat.decide(id, body, by: Self.caller(context)))
        }
        routes.operator.post("/api/approvals") { request, context in
            let body = try await request.decode(as: BatchApprovalRequest.self, context: context)
            guard !body.ids.isEmpty else { throw APIError.invalidBody("ids cannot be empty") }
            guard body.ids.count <= 200 else { throw APIError.invalidBody("at most 200 ids at a time") }
            guard Set(body.ids).count == body.ids.count else { throw APIError.invalidBody("ids contains duplicates") }
            let by = Self.caller(context)
            var results: [BatchApprovalResult] = []
            for id in body.ids {
                do throws(APIError) {
                    let approval = try await chat.decide(id, ApprovalDecisionRequest(decision: body.decision, message: body.message), by: by)
                    results.append(BatchApprovalResult(id: id, approval: approval, error: nil))
                } catch {
                    results.append(BatchApprovalResult(id: id, approval: nil, error: error.body.error))
                }
            }
            return JSONResponse.make(BatchApprovalResponse(results: results))
        }
    }

    static func id(_ context: AppRequestContext) throws(APIError) -> String {
        let id = context.parameters.get("id") ?? ""
        guard !id.isEmpty, id.count <= 100 else { throw .notFound("conversation '\(id.prefix(80))' does not exist") }
        return id
    }

    /// Who decided an approval: the key's id, or `local` for a trusted loopback caller.
    static func caller(_ context: AppRequestContext) -> String {
        context.identity?.keyID ?? "local"
    }

    static func limit(_ raw: String?, default value: Int) throws(APIError) -> Int {
        guard let raw else { return value }
        guard let n = Int(raw), (1...200).contains(n) else { throw .invalidParameter("limit must be an integer from 1 to 200, got '\(raw.prefix(40))'") }
        return n
    }

    static func bool(_ raw: String?, name: String) throws(APIError) -> Bool? {
        switch raw {
        case nil, "": nil
        case "true", "1": true
        case "false", "0": false
        case let other?: throw .invalidParameter("\(name) must be true or false, got '\(other.prefix(40))'")
        }
    }

    // MARK: - Event stream

    /// `GET /api/conversations/{id}/events`: stored events after the client's cursor, then live ones.
    func events(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try Self.id(context)
        // Right after a start, this waits until conversations are opened (and what the last server left is settled).
        let feed = try await chat.feed(id)
        let cursor: EventStreamRoutes.Cursor
        do {
            cursor = try EventStreamRoutes.cursor(for: request)
        } catch {
            feed.close()
            throw error
        }
        let live = feed.live
        let after: Int
        switch cursor {
        case .after(let a):
            after = min(a.line, live.head)
            metrics.streamResumed(route: context.endpointPath ?? "/api/conversations/{id}/events", depth: live.head - after)
        case .last(let n): after = max(0, live.head - n)
        case .all: after = 0
        }
        let logger = context.logger
        let channel = context.channel
        return EventStreamResponse.make(
            request, context, watchdog: watchdog, cleanup: { feed.close() }, onShutdown: { live.queue.close() },
            ended: { error in logger.debug("conversation stream ended: \(error)", metadata: ["id": "\(id)"]) }
        ) { writer, watch in
            try await watch.writing { try await writer.write(SSEFrame.preamble) }
            try await LiveStream.follow(live, key: id, fanout: feed.fanout, after: after, replay: { after, through, writer in
                try await Self.replay(feed, after: after, through: through, writer: &writer, watch: watch)
            }, writer: &writer, watch: watch, channel: channel)
        }
    }

    /// Writes the stored events of a conversation with sequence numbers in (after, through], in batches.
    static func replay(
        _ feed: ConversationFeed, after: Int, through: Int, writer: inout any ResponseBodyWriter, watch: StreamWatchdog.Watch
    ) async throws {
        var position = after
        while position < through {
            let batch = try await feed.stored(after: position, limit: min(500, through - position))
            guard let last = batch.last else { break }
            var buffer = ByteBuffer()
            var count = 0
            for event in batch where event.seq <= through {
                var frame = SSEFrame.event(id: String(event.seq), name: event.name, data: event.data)
                buffer.writeBuffer(&frame)
                count += 1
            }
            let pending = buffer
            try await watch.writing { try await writer.write(pending) }
            watch.counters?.loggedFrames.increment(by: Int64(count))
            position = last.seq
        }
    }
}
