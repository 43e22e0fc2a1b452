import AgentRunner
import Foundation
import RalphAPI

/// The auto-reply controls of a conversation, and loading its stored loop.
extension ChatService {
    typealias AutoReplyCommand = ConversationCore.LoopControl

    func autoReplyStatus(_ id: String) async throws(APIError) -> AutoReplyStatus {
        let worker = try await worker(id)
        return try await storeCall {
            try await worker.read { core, now in AutoReplyStatus(settings: core.autoReply.settings, progress: core.autoReply.progress(now: now)) }
        }
    }

    /// Replaces the settings (a running loop uses the new limits at once); `asDefault` also makes them the defaults of
    /// conversations created later in the same directory.
    func setAutoReply(_ id: String, _ settings: AutoReplySettings, asDefault: Bool) async throws(APIError) -> AutoReplyStatus {
        let status = try await autoReply(id, .settings(settings))
        if asDefault {
            let conversation = try await conversation(id)
            try await storeCall { _ = try await self.store.commit([.autoReplyDefaults(cwd: conversation.cwd, settings: Array(try WireJSON.encode(settings)))]) }
        }
        return status
    }

    /// Runs a control on the loop and answers with the settings and progress after it; the loop is stored either way.
    func autoReply(_ id: String, _ command: AutoReplyCommand) async throws(APIError) -> AutoReplyStatus {
        switch command {
        case .start(let settings?), .settings(let settings):
            let problems = settings.problems
            guard problems.isEmpty else { throw .invalidBody(problems.joined(separator: "; ")) }
        case .start(nil), .pause, .resume, .stop:
            break
        }
        let worker = try await worker(id)
        return try await perform(worker) { core, now in
            let actions = try core.control(command, now: now)
            return (AutoReplyStatus(settings: core.autoReply.settings, progress: core.autoReply.progress(now: now)), actions)
        }
    }

    /// The conversation's stored loop, else a stopped one with its settings, else its project's defaults, else the
    /// built-in defaults. What could not be read is returned as a problem: the worker logs it and says it on the
    /// conversation (``ConversationCore/loopReset(_:now:)``) instead of silently starting over.
    func loadAutoReply(_ conversation: Conversation) async throws -> (AutoReplyMachine, problem: String?) {
        var problems: [String] = []
        func problem(_ kept: String) -> String? {
            problems.isEmpty ? nil : "auto-reply: " + problems.joined(separator: "; ") + "; it was reset: stopped, with \(kept)"
        }
        if let stored = try await store.autoReply(conversationID: conversation.id) {
            if let loop = stored.loop {
                do {
                    return (try WireJSON.decode(AutoReplyMachine.self, from: Data(loop)), nil)
                } catch {
                    problems.append("the stored loop could not be read (\(error))")
                }
            }
            do {
                let settings = try WireJSON.decode(AutoReplySettings.self, from: Data(stored.settings))
                return (AutoReplyMachine(conversationID: conversation.id, settings: settings), problem("its stored settings"))
            } catch {
                problems.append("the stored settings could not be read (\(error))")
            }
        }
        if let defaults = try await store.autoReplyDefaults(cwd: conversation.cwd) {
            do {
                let settings = try WireJSON.decode(AutoReplySettings.self, from: Data(defaults))
                return (AutoReplyMachine(conversationID: conversation.id, settings: settings), problem("the defaults of its directory"))
            } catch {
                problems.append("the auto-reply defaults of \(conversation.cwd) could not be read (\(error))")
            }
        }
        return (AutoReplyMachine(conversationID: conversation.id, settings: AutoReplySettings()), problem("the built-in settings"))
    }
}
