import RalphAPI
import RalphMobilePresentation
import SwiftUI

/// The conversations: pinned first, newest activity next, live, page by page as it scrolls. Shown by ``ConversationsListView``.
struct ConversationsListContent: View {
    @Bindable var model: ConversationsListModel

    @State private var newForm: NewConversationModel?
    @State private var opened: String?
    @State private var deleting: String?
    @State private var renaming: String?
    @State private var newTitle = ""
    @State private var renameError: String?

    var body: some View {
        List {
            ForEach(model.rows) { row in
                NavigationLink {
                    ChatView(conversationID: row.id)
                } label: {
                    ConversationRowView(row: row)
                }
                .task { await model.rowAppeared(row.id) }
                .swipeActions(edge: .leading) { swipe(model.swipeActions(for: row.id, leadingEdge: true), on: row.id) }
                .swipeActions(edge: .trailing) { swipe(model.swipeActions(for: row.id, leadingEdge: false), on: row.id) }
                .contextMenu {
                    ForEach(model.actions(for: row.id)) { action in
                        Button(role: action.isDestructive ? .destructive : nil) {
                            run(action, on: row.id)
                        } label: {
                            Label(action.label, systemImage: action.symbolName)
                        }
                    }
                }
            }
            if model.isLoadingMore {
                ProgressView().frame(maxWidth: .infinity)
            }
            if !model.rows.isEmpty {
                Text(model.countText)
                    .font(.caption)
                    .foregroundStyle(Color(theme: .secondaryText))
                    .frame(maxWidth: .infinity)
            }
        }
        .overlay {
            if let empty = model.emptyText {
                ContentUnavailableView(empty.title, systemImage: "bubble.left.and.bubble.right", description: Text(empty.detail))
            }
        }
        .refreshable { await model.refresh() }
        .toolbar {
            ToolbarItemGroup(placement: .topBarTrailing) {
                Toggle(
                    isOn: Binding(get: { model.showArchived }, set: { show in Task { await model.setShowArchived(show) } })
                ) {
                    Label("Show archived", systemImage: "archivebox")
                }
                .accessibilityLabel("Show archived conversations")
                if model.canCreate {
                    Button {
                        newForm = model.newConversation()
                    } label: {
                        Image(systemName: "square.and.pencil")
                    }
                    .accessibilityLabel("New conversation")
                }
            }
        }
        .sheet(item: $newForm) { form in
            NavigationStack {
                NewConversationView(form: form) { created, problem in
                    model.created(created, problem: problem)
                    opened = created.id
                }
            }
        }
        .navigationDestination(item: $opened) { id in
            ChatView(conversationID: id)
        }
        .confirmationDialog(
            deleting.flatMap(model.deleteConfirmation(for:))?.title ?? "",
            isPresented: Binding(get: { deleting != nil }, set: { if !$0 { deleting = nil } }),
            titleVisibility: .visible,
            presenting: deleting
        ) { id in
            Button(model.deleteConfirmation(for: id)?.confirm ?? "Delete", role: .destructive) {
                Task { await model.delete(id) }
            }
        } message: { id in
            Text(model.deleteConfirmation(for: id)?.message ?? "")
        }
        .alert(
            "Rename conversation",
            isPresented: Binding(get: { renaming != nil }, set: { if !$0 { renaming = nil } }),
            presenting: renaming
        ) { id in
            TextField("Title", text: $newTitle)
            Button("Save") {
                Task {
                    renameError = await model.rename(id, to: newTitle)
                    if renameError != nil { renaming = id }
                }
            }
            Button("Cancel", role: .cancel) {}
        } message: { _ in
            Text(renameError ?? "")
        }
        .overlay(alignment: .bottom) { toast }
    }

    @ViewBuilder private func swipe(_ actions: [ConversationAction], on id: String) -> some View {
        ForEach(actions) { action in
            Button(role: action.isDestructive ? .destructive : nil) {
                run(action, on: id)
            } label: {
                Label(action.label, systemImage: action.symbolName)
            }
            .tint(action.isDestructive ? Color(theme: .danger) : Color(theme: .accent))
        }
    }

    private var toast: some View {
        ToastView(text: model.toast, onShown: model.clearNotice).padding(.bottom, 12)
    }

    private func run(_ action: ConversationAction, on id: String) {
        switch action {
        case .delete:
            deleting = id
        case .rename:
            newTitle = model.rows.first { $0.id == id }?.title ?? ""
            renameError = nil
            renaming = id
        default:
            Task { await model.perform(action, on: id) }
        }
    }
}

#Preview {
    NavigationStack {
        List(ChatFixtures.rows) { row in
            ConversationRowView(row: row)
        }
        .navigationTitle("Conversations")
    }
}

/// The conversations list as a section of the app: ``LiveFeedScreen`` builds, registers and starts its
/// ``ConversationsListModel``.
struct ConversationsListView: View {
    var body: some View {
        LiveFeedScreen(title: "Conversations", loading: "Loading conversations…", make: ConversationsListModel.init) {
            ConversationsListContent(model: $0)
        }
    }
}
