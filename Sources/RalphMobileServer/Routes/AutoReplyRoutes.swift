import Foundation
import Hummingbird
import NIOCore
import RalphAPI

/// The auto-reply loop of a conversation (`design/CHAT.md`, Auto-reply), and the aliases of the app we replace.
struct AutoReplyRoutes {
    let chat: ChatService

    func register(on routes: Routes) {
        routes.viewer.get("/api/auto-reply/presets") { _, context in
            return JSONResponse.make(AutoReplySettings.presets)
        }
        routes.viewer.get("/api/conversations/{id}/auto-reply") { _, context in
            return JSONResponse.make(try await chat.autoReplyStatus(ConversationRoutes.id(context)))
        }
        // Settings: a whole or partial JSON object (missing fields take their defaults), or `?preset=<name>`;
        // `?default=true` also makes them the defaults of new conversations in the same directory.
        routes.operator.put("/api/conversations/{id}/auto-reply") { request, context in
            let id = try ConversationRoutes.id(context)
            let query = request.uri.queryParameters
            let settings: AutoReplySettings
            if let name = query["preset"].map(String.init) {
                guard let preset = AutoReplySettings.presets[name] else {
                    throw APIError.invalidParameter("unknown preset '\(name.prefix(40))'; presets: \(AutoReplySettings.presets.keys.sorted().joined(separator: ", "))")
                }
                settings = preset
                let body = try await request.body.collect(upTo: context.maxUploadSize)
                guard String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw APIError.invalidBody("send either ?preset= or settings in the body, not both")
                }
            } else {
                settings = try await request.decode(as: AutoReplySettings.self, context: context)
            }
            let asDefault = try ConversationRoutes.bool(query["default"].map(String.init), name: "default") ?? false
            return JSONResponse.make(try await chat.setAutoReply(id, settings, asDefault: asDefault))
        }
        routes.operator.post("/api/conversations/{id}/auto-reply/start") { request, context in
            let id = try ConversationRoutes.id(context)
            let settings = try await Self.optionalSettings(request, context)
            return JSONResponse.make(try await chat.autoReply(id, .start(settings)))
        }
        for (verb, command) in [("pause", ChatService.AutoReplyCommand.pause), ("resume", .resume), ("stop", .stop)] {
            routes.operator.post("/api/conversations/{id}/auto-reply/\(verb)") { _, context in
                return JSONResponse.make(try await chat.autoReply(ConversationRoutes.id(context), command))
            }
        }

        // Aliases documented by the app we replace (`sessionId` is the conversation id).
        routes.operator.post("/api/chat/auto-response/start") { request, context in
            let body = try await request.decode(as: AutoResponseStartRequest.self, context: context)
            return JSONResponse.make(try await chat.autoReply(body.sessionId, .start(body.settings)))
        }
        for (verb, command) in [("pause", ChatService.AutoReplyCommand.pause), ("resume", .resume), ("stop", .stop)] {
            routes.operator.post("/api/chat/auto-response/\(verb)") { request, context in
                let body = try await request.decode(as: AutoResponseSessionRequest.self, context: context)
                return JSONResponse.make(try await chat.autoReply(body.sessionId, command))
            }
        }
        routes.viewer.get("/api/chat/{id}/progress") { _, context in
            return JSONResponse.make(AutoResponseProgressAlias(try await chat.autoReplyStatus(ConversationRoutes.id(context)).progress))
        }
    }

    /// The settings of a start request, when it has a body.
    static func optionalSettings(_ request: Request, _ context: AppRequestContext) async throws -> AutoReplySettings? {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0, !String(buffer: buffer).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        do {
            return try WireJSON.decode(AutoReplySettings.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw APIError.invalidBody(APIRequestDecoder.describe(error))
        } catch {
            throw APIError.invalidBody("the body is not valid JSON")
        }
    }
}

/// `{sessionId}` of the alias control routes.
struct AutoResponseSessionRequest: Codable {
    var sessionId: String
}
