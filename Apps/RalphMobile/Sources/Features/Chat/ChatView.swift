import RalphAPI
import RalphMobilePresentation
import SwiftUI

/// One conversation with Claude Code. Builds its ``ChatModel`` from the active server's client, registers it as a live
/// feed (closed in the background, resumed with no gap), and lays it out with ``ChatScreen``.
struct ChatView: View {
    let conversationID: String

    @Environment(AppModel.self) private var app
    @Environment(NotificationsHub.self) private var notifications
    @State private var model: ChatModel?

    var body: some View {
        Group {
            if let model {
                ChatScreen(model: model)
            } else {
                ProgressView("Loading the conversation…")
            }
        }
        .task(id: conversationID) {
            guard let client = app.client else { return }
            let chat = ChatModel(
                client: client, conversationID: conversationID, capabilities: app.capabilities, me: app.whoAmI?.keyID
            )
            model = chat
            app.feeds.register(chat)
            await chat.load()
        }
        .onAppear {
            notifications.show("conversation", subjectID: conversationID)
            Task { await model?.resume() }
        }
        .onDisappear {
            model?.suspend()
            notifications.show(.conversations)
        }
        .toolbar {
            if let conversation = model?.conversation.conversation {
                ToolbarItem(placement: .secondaryAction) {
                    Button {
                        Task { await liveActivity.toggle(conversation, approvals: model?.conversation.pendingApprovals ?? []) }
                    } label: {
                        Label(liveActivity.buttonTitle(for: conversationID), systemImage: liveActivity.buttonImage(for: conversationID))
                    }
                }
            }
        }
        .onChange(of: model?.conversation.conversation) { _, conversation in
            guard let conversation else { return }
            Task { await liveActivity.update(conversation, approvals: model?.conversation.pendingApprovals ?? []) }
        }
        .onChange(of: model?.conversation.pendingApprovals) { _, approvals in
            guard let conversation = model?.conversation.conversation else { return }
            Task { await liveActivity.update(conversation, approvals: approvals ?? []) }
        }
    }

    private var liveActivity: LiveActivityModel { notifications.liveActivity }
}

/// The chat's layout over its model.
struct ChatScreen: View {
    @Bindable var model: ChatModel

    @State private var showsPermissions = false
    @State private var showsAutoReply = false
    @State private var confirmsDelete = false
    @State private var renaming = false
    @State private var newTitle = ""
    @State private var renameError: String?

    var body: some View {
        ScrollViewReader { proxy in
            ScrollView {
                LazyVStack(alignment: .leading, spacing: 16) {
                    if model.canLoadEarlier {
                        Button {
                            Task { await model.loadEarlier() }
                        } label: {
                            if model.isLoadingEarlier {
                                ProgressView()
                            } else {
                                Text("Load earlier messages")
                            }
                        }
                        .frame(maxWidth: .infinity)
                    }
                    if let empty = model.emptyText {
                        Text(empty)
                            .foregroundStyle(Color(theme: .secondaryText))
                            .frame(maxWidth: .infinity)
                            .padding(.top, 40)
                    }
                    ChatTranscriptView(turns: model.turns, canDecide: model.capabilities.canDecideApprovals) { id in
                        model.reviewApproval(id)
                    }
                    ForEach(model.queued) { message in
                        QueuedMessageView(message: message)
                    }
                    Color.clear.frame(height: 1).id("end")
                }
                .padding()
            }
            .defaultScrollAnchor(.bottom)
            .onChange(of: model.conversation.eventCount) {
                proxy.scrollTo("end", anchor: .bottom)
            }
        }
        .background(Color(theme: .background))
        .safeAreaInset(edge: .top, spacing: 0) {
            VStack(spacing: 6) {
                ChatHeaderView(header: model.header, workingLine: model.workingLine, workingTone: model.workingTone)
                if model.autoReplyBar.isVisible {
                    AutoReplyStatusBarView(bar: model.autoReplyBar) { control in
                        Task { await model.perform(control) }
                    }
                    .padding(.horizontal)
                }
                if let banner = model.banner {
                    Text(banner)
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .danger))
                }
            }
            .background(Color(theme: .surface))
        }
        .safeAreaInset(edge: .bottom, spacing: 0) {
            ChatComposerView(
                text: $model.composer.text, options: model.sendOptions, error: model.composerError, note: model.composerNote,
                isSending: model.isSending,
                onSend: { mode in Task { await model.send(mode: mode) } },
                onInterrupt: { Task { await model.interrupt() } }
            )
        }
        .navigationTitle(model.header.title)
        .navigationBarTitleDisplayMode(.inline)
        .toolbar { toolbar }
        .sheet(item: Binding(get: { model.approvalSheet }, set: { if $0 == nil { model.dismissApprovalSheet() } })) { sheet in
            ApprovalSheetView(sheet: sheet) { decision, message in
                await model.decide(sheet.id, decision, message: message)
            }
        }
        .sheet(isPresented: $showsPermissions) {
            NavigationStack {
                PermissionsPanelView(panel: model.permissions) { ruleID in
                    Task { await model.revoke(ruleID) }
                }
            }
            .presentationDetents([.medium, .large])
        }
        .sheet(isPresented: $showsAutoReply) {
            NavigationStack {
                AutoReplySettingsView(conversationID: model.conversationID)
            }
        }
        .confirmationDialog(
            model.deleteConfirmation?.title ?? "", isPresented: $confirmsDelete, titleVisibility: .visible
        ) {
            Button(model.deleteConfirmation?.confirm ?? "Delete", role: .destructive) {
                Task { await model.delete() }
            }
        } message: {
            Text(model.deleteConfirmation?.message ?? "")
        }
        .alert("Rename conversation", isPresented: $renaming) {
            TextField("Title", text: $newTitle)
            Button("Save") {
                Task {
                    renameError = await model.rename(newTitle)
                    if renameError != nil { renaming = true }
                }
            }
            Button("Cancel", role: .cancel) {}
        } message: {
            Text(renameError ?? "")
        }
        .overlay(alignment: .top) { notice }
    }

    @ToolbarContentBuilder private var toolbar: some ToolbarContent {
        ToolbarItemGroup(placement: .topBarTrailing) {
            Button {
                showsPermissions = true
            } label: {
                Image(systemName: "lock.shield")
            }
            .accessibilityLabel(model.permissions.accessibilityLabel)
            Button {
                showsAutoReply = true
            } label: {
                Image(systemName: "arrow.triangle.2.circlepath")
            }
            .accessibilityLabel("Auto-reply settings")
            if !model.actions.isEmpty {
                Menu {
                    ForEach(model.actions) { action in
                        Button(role: action.isDestructive ? .destructive : nil) {
                            run(action)
                        } label: {
                            Label(action.label, systemImage: action.symbolName)
                        }
                    }
                } label: {
                    Image(systemName: "ellipsis.circle")
                }
                .accessibilityLabel("Conversation actions: pin, rename, archive, delete")
            }
        }
    }

    private var notice: some View {
        ToastView(text: model.toast, onShown: model.clearNotice)
            .padding(.top, 8)
            .accessibilityAddTraits(.isStaticText)
    }

    private func run(_ action: ConversationAction) {
        switch action {
        case .delete:
            confirmsDelete = true
        case .rename:
            newTitle = model.header.title
            renameError = nil
            renaming = true
        default:
            Task { await model.perform(action) }
        }
    }
}
