import Foundation
import RalphAPI
import RalphMobileKit
import Testing
import TestSupport

@testable import RalphMobilePresentation

/// The conversations list and the new-conversation form against the real server.
@Suite("Conversations list against the real server", .serialized)
@MainActor
struct ChatConversationsListTests {
    static func list(_ h: ChatHarness, role: Role = .operator, client: RalphClient? = nil, pageSize: Int = 30) -> ConversationsListModel {
        let model = ConversationsListModel(client: client ?? h.client, capabilities: Capabilities(role: role))
        model.pageSize = pageSize
        model.policy = ChatHarness.fastPolicy
        model.pollInterval = .milliseconds(200)
        return model
    }

    /// Conversations titled `c1` … `cn`, created one after the other (so each is newer than the one before).
    func create(_ h: ChatHarness, _ n: Int) async throws -> [Conversation] {
        var made: [Conversation] = []
        for i in 1...n {
            made.append(try await h.newConversation(title: "c\(i)"))
            try await Task.sleep(for: .milliseconds(5))
        }
        return made
    }

    @Test("pinned first, then newest activity; the next page loads when the last row shows, until there are no more")
    func orderAndPaging() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let made = try await create(h, 7)
        _ = try await h.client.updateConversation(made[1].id, PatchConversationRequest(pinned: true))
        let list = Self.list(h, pageSize: 3)
        await list.start()
        #expect(list.rows.map(\.title) == ["c2", "c7", "c6", "c5"])
        #expect(list.rows[0].isPinned && list.hasMore && list.countText == "4+ conversations")
        await list.rowAppeared(list.rows[1].id)
        #expect(list.rows.count == 4, "only the last row loads more")
        await list.rowAppeared(try #require(list.rows.last?.id))
        #expect(list.rows.map(\.title) == ["c2", "c7", "c6", "c5", "c4", "c3", "c1"])
        #expect(!list.hasMore && list.countText == "7 conversations")
        await list.rowAppeared(try #require(list.rows.last?.id))
        #expect(list.rows.count == 7)
        #expect(list.recentDirectories.count == 1 && list.recentDirectories[0].hasSuffix("/root/app"))
        list.suspend()
    }

    @Test("live: created, active, renamed, archived and deleted elsewhere shows at once; archived ones come back on demand")
    func live() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let made = try await create(h, 2)
        let list = Self.list(h)
        await list.start()
        try await chatUntil(5, "connected") { list.connection == .connected }
        let fresh = try await h.newConversation("web", title: "from the terminal")
        try await chatUntil(5, "the new conversation") { list.rows.first?.title == "from the terminal" }
        #expect(list.rows.first?.shortPath == "…/root/web")
        _ = try await h.client.sendMessage(made[0].id, text: "wake up")
        try await chatUntil(30, "the active one to move up with its preview") {
            list.rows.first?.id == made[0].id && list.rows.first?.preview == "Echo: wake up" && list.rows.first?.statusText == "idle"
        }
        _ = try await h.client.updateConversation(made[1].id, PatchConversationRequest(title: "renamed"))
        try await chatUntil(5, "the new title") { list.rows.contains { $0.title == "renamed" } }
        _ = try await h.client.updateConversation(fresh.id, PatchConversationRequest(archived: true))
        try await chatUntil(5, "the archived one to leave") { !list.rows.contains { $0.id == fresh.id } }
        await list.setShowArchived(true)
        #expect(list.rows.first { $0.id == fresh.id }?.isArchived == true)
        try await h.client.deleteConversation(made[1].id)
        try await chatUntil(5, "the deleted one to leave") { !list.rows.contains { $0.id == made[1].id } }
        #expect(list.rows.count == 2)
        list.suspend()
    }

    @Test("pin, rename, archive and delete from the list, each with its notice; rename and delete are checked first")
    func actions() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let made = try await create(h, 3)
        let list = Self.list(h)
        await list.start()
        let oldest = made[0].id
        #expect(list.actions(for: oldest) == [.pin, .rename, .archive, .delete])
        #expect(list.swipeActions(for: oldest, leadingEdge: true) == [.pin])
        #expect(list.swipeActions(for: oldest, leadingEdge: false) == [.archive, .delete])
        #expect(await list.perform(.pin, on: oldest))
        #expect(list.rows.first?.id == oldest && list.notice == "Pinned")
        #expect(list.actions(for: oldest).first == .unpin)
        #expect(await list.rename(oldest, to: "") == "Enter a title.")
        #expect(await list.rename(oldest, to: "  Release  ") == nil)
        #expect(list.rows.first?.title == "Release")
        #expect(try await h.client.conversation(oldest).title == "Release")
        #expect(await list.perform(.archive, on: made[1].id))
        #expect(!list.rows.contains { $0.id == made[1].id } && list.notice == "Archived")
        #expect(list.deleteConfirmation(for: made[2].id)?.title == "Delete this conversation?")
        #expect(await list.delete(made[2].id))
        #expect(list.rows.map(\.id) == [oldest] && list.notice == "Conversation deleted")
        await #expect(throws: RalphClientError.self) { try await h.client.conversation(made[2].id) }
        // The server's refusal is kept for the screen.
        #expect(await list.delete(made[2].id) == false)
        #expect(list.lastError?.contains("does not exist") == true)
        list.suspend()
    }

    @Test("new conversation: checked before any request, the server's refusal on its field, the CLI's permission modes, a first message")
    func newConversation() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let list = Self.list(h)
        await list.start()
        #expect(list.emptyText?.title == "No conversations yet (archived ones are hidden).")
        let form = list.newConversation()
        #expect(form.directory == "." && form.permissionModes == ["default"])
        await form.loadAgent()
        #expect(form.permissionModes.first == "default" && form.permissionModes.contains("plan") && form.permissionModes.contains("acceptEdits"))
        #expect(form.permissionModesNote.hasPrefix("The modes claude \(RealClaude.pinnedVersion)"), "\(form.permissionModesNote)")
        #expect(form.label(forMode: "plan") == "plan — reads and plans only, no changes")
        form.directory = "  "
        form.model = "-rm"
        form.title = String(repeating: "t", count: 201)
        #expect(form.localProblems[.directory] == "Enter a directory (\".\" for the workspace root).")
        #expect(form.localProblems[.model] == "A short name without spaces that does not start with \"-\".")
        #expect(form.localProblems[.title] == "At most 200 characters.")
        #expect(!form.canCreate)
        #expect(await form.create() == nil)
        #expect(try await h.client.conversations().items.isEmpty, "nothing was sent")
        form.title = ""
        form.model = ""
        form.directory = "../outside"
        #expect(form.canCreate)
        #expect(await form.create() == nil)
        #expect(form.problems[.directory]?.hasPrefix("invalid path:") == true, "\(form.problems)")
        form.edited(.directory)
        #expect(form.problems[.directory] == nil)
        form.directory = "app"
        form.permissionMode = "plan"
        form.firstMessage = "hello there"
        let created = try #require(await form.create())
        #expect(created.permissionMode == "plan" && created.cwd.hasSuffix("/root/app"))
        #expect(form.firstMessageError == nil)
        list.created(created)
        #expect(list.rows.first?.id == created.id)
        try await eventually(30, "the first message's answer") {
            try await h.client.messages(created.id).items.last?.text == "Echo: hello there"
        }
        // The next form starts in the directory just used.
        #expect(list.newConversation().directory == created.cwd)
        list.suspend()
    }

    @Test("suspended in the background, the list catches up on return with what changed meanwhile")
    func suspendResume() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        _ = try await create(h, 1)
        let list = Self.list(h)
        await list.start()
        try await chatUntil(5, "connected") { list.connection == .connected }
        // An event so the list knows where the stream is.
        let second = try await h.newConversation(title: "c2")
        try await chatUntil(5, "c2") { list.rows.first?.id == second.id }
        list.suspend()
        #expect(list.connection == .disconnected)
        let third = try await h.newConversation(title: "while away")
        try await Task.sleep(for: .milliseconds(300))
        #expect(!list.rows.contains { $0.id == third.id })
        await list.resume()
        try await chatUntil(5, "the missed conversation") { list.rows.first?.id == third.id }
        #expect(list.rows.count == 3)
        list.suspend()
    }

    @Test("behind a proxy that refuses event streams, the list polls and stays current")
    func pollingFallback() async throws {
        let h = try await ChatHarness.start()
        defer { Task { await h.stop() } }
        let proxy = try await StreamBlockingProxy.start(upstream: h.server.base, forwarding: .everything)
        defer { Task { await proxy.stop() } }
        let list = Self.list(h, client: try RalphClient(baseURL: proxy.base))
        await list.start()
        let made = try await h.newConversation(title: "seen by polling")
        try await chatUntil(10, "the poll to find it") { list.rows.contains { $0.id == made.id } }
        #expect(list.isPolling && list.connection != .connected)
        list.suspend()
    }

    @Test("a viewer reads the list but gets no actions and no new-conversation button")
    func viewer() async throws {
        let h = try await ChatHarness.start(apiKey: "chat-admin-key-0123456789")
        defer { Task { await h.stop() } }
        let made = try await create(h, 1)
        let (viewerClient, _) = try await h.client(role: .viewer)
        let list = Self.list(h, role: .viewer, client: viewerClient)
        await list.start()
        #expect(list.rows.map(\.id) == [made[0].id])
        #expect(!list.canCreate && list.actions(for: made[0].id).isEmpty)
        #expect(await list.perform(.pin, on: made[0].id) == false)
        #expect(list.lastError?.hasPrefix("not allowed") == true)
        list.suspend()
    }
}
