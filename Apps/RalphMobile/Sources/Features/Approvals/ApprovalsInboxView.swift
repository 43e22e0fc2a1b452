import RalphAPI
import RalphMobilePresentation
import SwiftUI

/// Every tool call waiting for a person, across conversations, live; tap one for its sheet, or select several and
/// allow or deny them at once. Shown by ``ApprovalsInboxView``.
struct ApprovalsInboxContent: View {
    @Bindable var model: ApprovalsInboxModel

    @State private var openedID: String?
    @State private var batch: ApprovalBatchConfirmation?
    @State private var conversationToOpen: String?

    var body: some View {
        TimelineView(.periodic(from: .now, by: 30)) { context in
            List {
                Section {
                    Picker(
                        "Which approvals",
                        selection: Binding(get: { model.filter }, set: { filter in Task { await model.setFilter(filter) } })
                    ) {
                        ForEach(ApprovalsInboxModel.Filter.allCases) { filter in
                            Text(filter.label).tag(filter)
                        }
                    }
                    .pickerStyle(.segmented)
                    if model.showsBatchBar {
                        batchBar
                    }
                }
                if let result = model.batchResult {
                    Section {
                        ForEach(result.lines) { line in
                            Label(line.text, systemImage: line.applied ? "checkmark.circle" : "xmark.circle")
                                .foregroundStyle(line.applied ? Color(theme: .success) : Color(theme: .danger))
                        }
                        Button("Hide the results") { model.clearBatchResult() }
                    } header: {
                        Text(result.title)
                    }
                }
                Section {
                    ForEach(model.rows) { row in
                        ApprovalRowView(
                            row: row, now: context.date, canSelect: model.capabilities.canDecideApprovals,
                            onToggle: { model.toggleSelection(row.id) }, onOpen: { openedID = row.id },
                            onOpenConversation: { conversationToOpen = row.conversationID }
                        )
                    }
                } footer: {
                    if let count = model.countText {
                        Text(count)
                    }
                }
            }
        }
        .overlay {
            if let empty = model.emptyText {
                ContentUnavailableView(empty.title, systemImage: "checkmark.shield", description: Text(empty.detail))
            }
        }
        .refreshable { await model.refresh() }
        .navigationDestination(item: $conversationToOpen) { id in
            ChatView(conversationID: id)
        }
        .sheet(item: Binding(get: { openedID.flatMap(model.sheet(for:)) }, set: { if $0 == nil { openedID = nil } })) { sheet in
            ApprovalSheetView(sheet: sheet) { decision, message in
                await model.decide(sheet.id, decision, message: message)
            }
        }
        .sheet(item: $batch) { confirmation in
            BatchDecisionView(confirmation: confirmation) { message in
                await model.decideSelected(confirmation.decision, message: message)
            }
        }
        .overlay(alignment: .bottom) {
            ToastView(text: model.toast, onShown: model.clearNotice).padding(.bottom, 12)
        }
    }

    private var batchBar: some View {
        HStack {
            Button {
                model.toggleSelectAll()
            } label: {
                Label(model.selectAllLabel, systemImage: model.selectAllSymbol)
            }
            Spacer()
            Button(model.allowSelectedLabel) { batch = model.batchConfirmation(.allow) }
                .buttonStyle(.borderedProminent)
                .tint(Color(theme: .success))
                .disabled(!model.canDecideSelected)
            Button(model.denySelectedLabel, role: .destructive) { batch = model.batchConfirmation(.deny) }
                .buttonStyle(.bordered)
                .disabled(!model.canDecideSelected)
        }
        .buttonStyle(.borderless)
    }
}

/// One row: a checkbox for pending ones (operators), the call, its conversation and age, the state of decided ones.
struct ApprovalRowView: View {
    let row: ApprovalRow
    let now: Date
    let canSelect: Bool
    var onToggle: @MainActor () -> Void = {}
    var onOpen: @MainActor () -> Void = {}
    var onOpenConversation: @MainActor () -> Void = {}

    var body: some View {
        HStack(spacing: 10) {
            if canSelect && row.isPending {
                Button(action: onToggle) {
                    Image(systemName: row.isSelected ? "checkmark.square.fill" : "square")
                }
                .buttonStyle(.borderless)
                .accessibilityLabel(row.selectAccessibilityLabel)
                .accessibilityAddTraits(row.isSelected ? .isSelected : [])
            }
            Button(action: onOpen) {
                VStack(alignment: .leading, spacing: 2) {
                    HStack {
                        Text(row.toolName).font(.subheadline.bold())
                        Text(row.summary).font(.subheadline.monospaced()).lineLimit(1)
                    }
                    if let diff = row.diffSummary {
                        Text(diff)
                            .font(.caption.monospaced())
                            .foregroundStyle(Color(theme: .secondaryText))
                            .lineLimit(1)
                    }
                    Text(row.subtitle(now: now))
                        .font(.caption)
                        .foregroundStyle(Color(theme: .secondaryText))
                }
                .frame(maxWidth: .infinity, alignment: .leading)
            }
            .buttonStyle(.plain)
            .accessibilityLabel(row.accessibilityLabel(now: now))
            if let state = row.stateText {
                ChatBadge(text: state, tone: row.tone)
            }
            Button(action: onOpenConversation) {
                Image(systemName: "arrow.right.circle")
            }
            .buttonStyle(.borderless)
            .accessibilityLabel(row.openConversationAccessibilityLabel)
        }
    }
}

/// Asks before deciding several approvals: what they are, and for deny an optional message sent with each.
struct BatchDecisionView: View {
    let confirmation: ApprovalBatchConfirmation
    var onConfirm: @MainActor (String?) async -> Bool = { _ in false }

    @Environment(\.dismiss) private var dismiss
    @State private var message = ""
    @State private var working = false

    var body: some View {
        NavigationStack {
            Form {
                Section {
                    ForEach(Array(confirmation.lines.enumerated()), id: \.offset) { _, line in
                        Text(line).font(.footnote.monospaced())
                    }
                }
                if confirmation.asksForMessage {
                    Section("Message to the agent (optional, sent with each)") {
                        TextField("e.g. Stop and wait for me", text: $message, axis: .vertical)
                    }
                }
            }
            .navigationTitle(confirmation.title)
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Cancel") { dismiss() }
                }
                ToolbarItem(placement: .confirmationAction) {
                    Button(confirmation.confirmLabel, role: confirmation.decision == .deny ? .destructive : nil) {
                        working = true
                        Task {
                            if await onConfirm(confirmation.asksForMessage ? message : nil) { dismiss() }
                            working = false
                        }
                    }
                    .disabled(working)
                }
            }
        }
        .presentationDetents([.medium, .large])
    }
}

#Preview("Rows") {
    List(ChatFixtures.approvalRows) { row in
        ApprovalRowView(row: row, now: ChatFixtures.now, canSelect: true)
    }
}

#Preview("Batch deny") {
    BatchDecisionView(confirmation: ChatFixtures.batchConfirmation)
}

/// The approvals inbox as a section of the app: ``LiveFeedScreen`` builds, registers and starts its
/// ``ApprovalsInboxModel``.
struct ApprovalsInboxView: View {
    var body: some View {
        LiveFeedScreen(title: "Approvals", loading: "Loading approvals…", make: ApprovalsInboxModel.init) {
            ApprovalsInboxContent(model: $0)
        }
    }
}
