import RalphAPI
import RalphMobilePresentation
import SwiftUI

/// The approval sheet: what the tool call wants to do, and Allow / Allow for this session / Deny (with an optional
/// message to Claude) for those who may decide. It closes when answered, here or elsewhere.
struct ApprovalSheetView: View {
    let sheet: ApprovalSheet
    var onDecide: @MainActor (ApprovalDecision, String?) async -> ApprovalOutcome = { _, _ in .failed("") }

    @Environment(\.dismiss) private var dismiss
    @State private var denyMessage = ""
    @State private var error: String?
    @State private var working: ApprovalDecision?
    @State private var showsInput = false
    /// The sheet's diffs, parsed once per change of the approval's diffs (not at every keystroke of the message).
    @State private var diffFiles: [DiffFile] = []

    var body: some View {
        NavigationStack {
            ScrollView {
                VStack(alignment: .leading, spacing: 14) {
                    TimelineView(.periodic(from: .now, by: 10)) { context in
                        Text(sheet.meta(now: context.date))
                            .font(.caption)
                            .foregroundStyle(Color(theme: .secondaryText))
                    }
                    if let state = sheet.stateLine {
                        Text(state).font(.callout)
                    }
                    if let described = sheet.describedAs {
                        Text(described).font(.callout)
                    }
                    if let prominent = sheet.prominent {
                        VStack(alignment: .leading, spacing: 4) {
                            Text(prominent.label).font(.caption.bold())
                            Text(prominent.text)
                                .font(.body.monospaced())
                                .textSelection(.enabled)
                                .padding(10)
                                .frame(maxWidth: .infinity, alignment: .leading)
                                .background(Color(theme: .surfaceRaised), in: RoundedRectangle(cornerRadius: 8))
                            if let note = prominent.note {
                                Text(note).font(.footnote).foregroundStyle(Color(theme: .secondaryText))
                            }
                        }
                        .accessibilityElement(children: .combine)
                    }
                    if sheet.hasDiffs {
                        DiffListView(title: sheet.diffTitle, files: diffFiles)
                    }
                    if let blocked = sheet.blockedPathLine {
                        Text(blocked).font(.footnote.monospaced())
                    }
                    if let reason = sheet.reasonLine {
                        Text(reason).font(.footnote)
                    }
                    DisclosureGroup("Full input", isExpanded: $showsInput) {
                        ScrollView(.horizontal) {
                            Text(sheet.fullInput)
                                .font(.caption.monospaced())
                                .textSelection(.enabled)
                        }
                    }
                    if sheet.canDecide {
                        decisionControls
                    } else if let note = sheet.viewerNote {
                        Text(note).font(.footnote).foregroundStyle(Color(theme: .secondaryText))
                    }
                }
                .padding()
            }
            .navigationTitle(sheet.title)
            .navigationBarTitleDisplayMode(.inline)
            .toolbar {
                ToolbarItem(placement: .cancellationAction) {
                    Button("Close") { dismiss() }
                        .accessibilityLabel("Close without answering")
                }
            }
            .onAppear { showsInput = sheet.fullInputStartsExpanded }
            .onChange(of: sheet.approval.diffs, initial: true) { diffFiles = sheet.diffFiles }
        }
        .presentationDetents([.medium, .large])
    }

    @ViewBuilder private var decisionControls: some View {
        VStack(alignment: .leading, spacing: 10) {
            Button {
                decide(.allow)
            } label: {
                Text(sheet.allowLabel).frame(maxWidth: .infinity)
            }
            .buttonStyle(.borderedProminent)
            .tint(Color(theme: .success))
            if let rule = sheet.sessionRuleAboveText {
                Text(rule)
                    .font(.footnote.monospaced())
            }
            Button {
                decide(.allowSession)
            } label: {
                sessionLabel.frame(maxWidth: .infinity)
            }
            .buttonStyle(.bordered)
            .accessibilityLabel(sheet.sessionButtonLabel)
            .accessibilityHint(sheet.sessionHint)
            Text(sheet.sessionHint)
                .font(.caption)
                .foregroundStyle(Color(theme: .secondaryText))
            Text(sheet.denyMessageLabel).font(.caption.bold())
            TextField(sheet.denyMessagePlaceholder, text: $denyMessage, axis: .vertical)
                .lineLimit(1...4)
                .padding(8)
                .background(Color(theme: .surfaceRaised), in: RoundedRectangle(cornerRadius: 8))
                .accessibilityLabel(sheet.denyMessageLabel)
            Button(role: .destructive) {
                decide(.deny)
            } label: {
                Text(sheet.denyLabel).frame(maxWidth: .infinity)
            }
            .buttonStyle(.bordered)
            if let error {
                Text(error).font(.footnote).foregroundStyle(Color(theme: .danger))
            }
        }
        .disabled(working != nil)
    }

    /// `Allow` + the rule in a monospaced font + `for this session`, or the words alone.
    private var sessionLabel: Text {
        let parts = sheet.sessionButton
        guard let rule = parts.rule else { return Text(parts.before) }
        return Text(parts.before) + Text(rule).font(.body.monospaced()) + Text(parts.after)
    }

    private func decide(_ decision: ApprovalDecision) {
        working = decision
        Task {
            let outcome = await onDecide(decision, decision == .deny ? denyMessage : nil)
            working = nil
            if outcome.closesSheet {
                dismiss()
            } else {
                error = outcome.message
            }
        }
    }
}

#Preview("Bash, operator") {
    Color(theme: .background)
        .sheet(isPresented: .constant(true)) {
            ApprovalSheetView(sheet: ChatFixtures.approvalSheet)
        }
}

#Preview("Edit with its diff") {
    ApprovalSheetView(sheet: ApprovalSheet(DiffFixtures.editApproval, canDecide: true))
}

#Preview("Codex apply_patch") {
    ApprovalSheetView(sheet: ApprovalSheet(DiffFixtures.patchApproval, canDecide: true))
}

#Preview("Long rule") {
    ApprovalSheetView(sheet: ApprovalSheet(ChatFixtures.longRuleApproval, canDecide: true))
}

#Preview("Viewer") {
    ApprovalSheetView(sheet: ApprovalSheet(ChatFixtures.writeApproval, canDecide: false))
}

#Preview("Decided") {
    ApprovalSheetView(sheet: ApprovalSheet(ChatFixtures.deniedApproval, canDecide: true))
}
