import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// The "New conversation" form: which agent (Claude Code, Codex — those the server cannot run are shown disabled with
/// why), where it works, an optional title, model and permission mode (the chosen agent's), and an optional first
/// message. Checked as it is filled in; the server's refusal is put on the field it is about.
@MainActor
@Observable
public final class NewConversationModel: Identifiable {
    public enum Field: String, Hashable, Sendable, CaseIterable {
        case backend
        case directory
        case title
        case model
        case permissionMode
        case firstMessage
    }

    public let client: RalphClient

    /// Relative to the workspace root (`.` is the root itself), or an absolute path inside it.
    public var directory: String
    public var title = ""
    public var model = ""
    public var permissionMode = "default"
    public var firstMessage = ""

    /// The agent the conversation runs (a ``ChatBackendChoice`` id); change it with ``choose(backend:)``.
    public private(set) var backend = "claude"
    /// The agents the server lists, in its order (Claude Code first); empty until ``loadAgent()`` read them, or when
    /// the server lists none (then no `backend` is sent and the server runs its default).
    public private(set) var backends: [ChatBackendChoice] = []
    /// The chosen agent's default mode first (`default`, or `untrusted` for Codex), then the other modes it accepts.
    public private(set) var permissionModes = ["default"]
    /// Where the modes came from, said under the picker.
    public private(set) var permissionModesNote = "Asking the server which modes its claude accepts…"
    @ObservationIgnored private var agents: [AgentInfo] = []
    /// Directories of recent conversations, newest first: quick choices for ``directory``.
    public let recentDirectories: [String]
    /// The server's refusal, by field (cleared when the form is sent again).
    public private(set) var serverProblems: [Field: String] = [:]
    /// A refusal about no field in particular.
    public private(set) var formError: String?
    /// Set when the conversation was created but its first message could not be sent.
    public private(set) var firstMessageError: String?
    public private(set) var isCreating = false

    /// Model names offered (any other the CLI accepts can be typed).
    public static let suggestedModels = ["sonnet", "opus", "haiku"]

    public init(client: RalphClient, directory: String = ".", recentDirectories: [String] = []) {
        self.client = client
        self.directory = directory
        self.recentDirectories = recentDirectories
    }

    /// Reads the agents the server runs and the permission modes each accepts (`GET /api/health`), and chooses the first
    /// one that can be used unless the one chosen can.
    public func loadAgent() async {
        do {
            agents = try await client.health().agents ?? []
        } catch {
            permissionModesNote = "The modes could not be read (\(error.description)): only default is offered."
            return
        }
        backends = agents.map(ChatBackendChoice.init)
        let current = backends.first { $0.id == backend }
        if current?.isUsable != true, let usable = backends.first(where: \.isUsable) {
            choose(backend: usable.id)
        } else {
            choose(backend: backend)
        }
    }

    /// Chooses the agent: its modes replace the last one's (the mode goes back to its default when the new agent does
    /// not take it).
    public func choose(backend name: String) {
        if backend != name { edited(.backend) }
        backend = name
        guard let agent = agents.first(where: { $0.name == name }) else {
            permissionModesNote = "The server does not say which modes its \(name) accepts: only default is offered."
            return
        }
        let choice = ChatBackendChoice(agent)
        permissionModes = choice.permissionModes
        if !permissionModes.contains(permissionMode) || permissionMode == "default" { permissionMode = permissionModes[0] }
        if !choice.isUsable, let error = agent.error {
            permissionModesNote = "\(choice.title) cannot be used on this server (\(error))."
        } else if agent.error != nil {
            permissionModesNote = "The server is still asking \(agent.name) which modes it accepts: these are the ones it expects."
        } else {
            permissionModesNote = "The modes \(agent.name)" + (agent.version.map { " " + $0 } ?? "") + " accepts."
        }
    }

    /// The chosen agent in words (`Claude Code`, `Codex`), for the form's texts.
    public var agentTitle: String { ChatBackendChoice.title(backend) }

    /// The chosen agent, once the server listed it.
    public var chosenBackend: ChatBackendChoice? { backends.first { $0.id == backend } }

    /// `plan — reads and plans only, no changes`.
    public func label(forMode mode: String) -> String { ConversationWords.permissionMode(mode) }

    /// What is wrong with each field: the checks made here, and what the server said about the last attempt.
    public var problems: [Field: String] { serverProblems.merging(localProblems) { _, local in local } }

    /// What is wrong with each field as it stands, checked here.
    public var localProblems: [Field: String] {
        var problems: [Field: String] = [:]
        let trimmedTitle = title.trimmingCharacters(in: .whitespacesAndNewlines)
        let trimmedModel = model.trimmingCharacters(in: .whitespacesAndNewlines)
        if let chosen = chosenBackend, let why = chosen.unavailableText { problems[.backend] = why }
        if directory.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { problems[.directory] = "Enter a directory (\".\" for the workspace root)." }
        if trimmedTitle.count > ConversationAction.maxTitleLength { problems[.title] = "At most 200 characters." }
        if !trimmedModel.isEmpty, trimmedModel.contains(where: \.isWhitespace) || trimmedModel.hasPrefix("-") || trimmedModel.count > 100 {
            problems[.model] = "A short name without spaces that does not start with \"-\"."
        }
        if !permissionModes.contains(permissionMode) { problems[.permissionMode] = "Choose one of the modes offered." }
        if ChatFormat.byteCount(firstMessage) > ChatComposer.maxBytes { problems[.firstMessage] = "At most 100,000 bytes." }
        return problems
    }

    public var canCreate: Bool { localProblems.isEmpty && !isCreating }

    /// The request the form stands for.
    public var request: CreateConversationRequest {
        let trimmedTitle = title.trimmingCharacters(in: .whitespacesAndNewlines)
        let trimmedModel = model.trimmingCharacters(in: .whitespacesAndNewlines)
        let isDefaultMode = permissionMode == "default" || permissionMode == ChatBackendChoice.defaultMode(backend)
        return CreateConversationRequest(
            title: trimmedTitle.isEmpty ? nil : trimmedTitle, cwd: directory.trimmingCharacters(in: .whitespacesAndNewlines),
            backend: backends.isEmpty ? nil : backend, model: trimmedModel.isEmpty ? nil : trimmedModel, permissionMode: isDefaultMode ? nil : permissionMode
        )
    }

    /// Creates the conversation and sends the first message when there is one; nil (with the problems shown) when it
    /// was refused. A conversation created whose first message failed is returned, with ``firstMessageError``.
    public func create() async -> Conversation? {
        serverProblems = [:]
        formError = nil
        firstMessageError = nil
        guard localProblems.isEmpty, !isCreating else { return nil }
        isCreating = true
        defer { isCreating = false }
        let created: Conversation
        do {
            created = try await client.createConversation(request)
        } catch {
            place(error)
            return nil
        }
        if !firstMessage.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            do {
                _ = try await client.sendMessage(created.id, text: firstMessage)
            } catch {
                firstMessageError = "The conversation was created but the first message was not sent: " + error.description
            }
        }
        return created
    }

    /// Puts the server's refusal on the field it names.
    private func place(_ error: RalphClientError) {
        let message = error.description
        if case .invalidPath = error {
            serverProblems[.directory] = message
        } else if message.contains("backend") {
            serverProblems[.backend] = message
        } else if message.contains("cwd") {
            serverProblems[.directory] = message
        } else if message.contains("permission_mode") {
            serverProblems[.permissionMode] = message
        } else if message.contains("title") {
            serverProblems[.title] = message
        } else if message.contains("model") {
            serverProblems[.model] = message
        } else {
            formError = message
        }
    }

    /// A field was edited: the server's old complaint about it no longer applies.
    public func edited(_ field: Field) { serverProblems[field] = nil }
}
