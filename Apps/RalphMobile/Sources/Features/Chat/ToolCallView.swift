import RalphMobilePresentation
import SwiftUI

/// A tool call: one line (name, what it does, state, and for a file edit what it changed) that opens onto its input, how
/// its approval was answered, the diff of what it changed, and its output; a long output shows its start until "Show all".
struct ToolCallView: View {
    let item: ChatToolCallItem
    let canDecide: Bool
    var onReview: @MainActor (String) -> Void = { _ in }

    @State private var isExpanded = false
    @State private var showsAll = false

    var body: some View {
        VStack(alignment: .leading, spacing: 6) {
            DisclosureGroup(isExpanded: $isExpanded) {
                details
            } label: {
                VStack(alignment: .leading, spacing: 2) {
                    HStack(spacing: 6) {
                        Image(systemName: "gearshape")
                            .foregroundStyle(Color(theme: .secondaryText))
                            .accessibilityHidden(true)
                        Text(item.name)
                            .font(.subheadline.weight(.semibold))
                        Text(item.summary)
                            .font(.subheadline.monospaced())
                            .lineLimit(1)
                            .truncationMode(.middle)
                            .foregroundStyle(Color(theme: .secondaryText))
                        Spacer(minLength: 4)
                        ChatBadge(text: item.stateText, tone: item.tone)
                    }
                    if let diff = item.diffLine {
                        Text(diff)
                            .font(.caption.monospaced())
                            .foregroundStyle(Color(theme: .secondaryText))
                            .lineLimit(1)
                    }
                }
                .accessibilityElement(children: .ignore)
                .accessibilityLabel(item.accessibilityLabel)
            }
            if let waiting = item.waitingText(canDecide: canDecide) {
                HStack {
                    Text(waiting)
                        .font(.footnote)
                        .foregroundStyle(Color(theme: .warning))
                    Spacer()
                    if canDecide, let approvalID = item.pendingApprovalID {
                        Button(item.reviewLabel) { onReview(approvalID) }
                            .buttonStyle(.borderedProminent)
                            .accessibilityLabel(item.reviewAccessibilityLabel)
                    }
                }
            }
        }
        .padding(10)
        .background(Color(theme: .surface), in: RoundedRectangle(cornerRadius: 10))
    }

    @ViewBuilder private var details: some View {
        VStack(alignment: .leading, spacing: 8) {
            Text("Input").font(.caption.bold())
            ScrollView(.horizontal) {
                Text(item.inputText)
                    .font(.caption.monospaced())
                    .textSelection(.enabled)
            }
            if let decision = item.decision {
                Text(decision.line)
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .secondaryText))
            }
            if item.hasDiffs {
                DiffListView(title: item.diffTitle, files: item.diffFiles)
            }
            if let preview = item.outputPreview, let output = item.output {
                Text(item.outputTitle).font(.caption.bold())
                ScrollView(.horizontal) {
                    Text(showsAll ? output : preview)
                        .font(.caption.monospaced())
                        .foregroundStyle(item.isError ? Color(theme: .danger) : Color(theme: .text))
                        .textSelection(.enabled)
                }
                if let label = item.showAllLabel, !showsAll {
                    Button(label) { showsAll = true }
                        .font(.footnote)
                        .accessibilityLabel(item.showAllAccessibilityLabel ?? label)
                }
            }
        }
        .padding(.top, 4)
    }
}

#Preview {
    ScrollView {
        VStack(spacing: 12) {
            ForEach(ChatFixtures.turns.flatMap(\.replies).flatMap(\.tools)) { item in
                ToolCallView(item: item, canDecide: true)
            }
            ToolCallView(
                item: ChatToolCallItem(DiffFixtures.appliedEdit, turnRunning: false, pendingApprovalID: nil, decision: nil), canDecide: true
            )
        }
        .padding()
    }
    .background(Color(theme: .background))
}
