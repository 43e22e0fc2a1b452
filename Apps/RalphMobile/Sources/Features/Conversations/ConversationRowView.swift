import RalphMobilePresentation
import SwiftUI

/// One conversation in the list: title (★ when pinned), status or waiting approvals, the agent, the retry line, the last
/// message, where it runs, and how long ago it was active.
struct ConversationRowView: View {
    let row: ConversationRow

    var body: some View {
        TimelineView(.periodic(from: .now, by: 30)) { context in
            VStack(alignment: .leading, spacing: 4) {
                HStack(spacing: 6) {
                    if row.isPinned {
                        Image(systemName: "pin.fill")
                            .font(.caption)
                            .foregroundStyle(Color(theme: .accent))
                            .accessibilityHidden(true)
                    }
                    Text(row.title)
                        .font(.headline)
                        .lineLimit(1)
                    if row.isArchived {
                        ChatBadge(text: "archived", tone: .neutral)
                    }
                    Spacer()
                    Text(row.activity(now: context.date))
                        .font(.caption)
                        .foregroundStyle(Color(theme: .secondaryText))
                }
                HStack(spacing: 6) {
                    if let status = row.statusText {
                        ChatBadge(text: status, tone: row.statusTone)
                    }
                    if let approvals = row.approvalsText {
                        ChatBadge(text: approvals, tone: .attention)
                    }
                    Text(row.backendText)
                        .font(.caption.weight(.semibold))
                        .foregroundStyle(Color(theme: .secondaryText))
                    Text(row.shortPath)
                        .font(.caption.monospaced())
                        .foregroundStyle(Color(theme: .secondaryText))
                        .lineLimit(1)
                }
                if let retry = row.retryText {
                    Text(retry)
                        .font(.caption)
                        .foregroundStyle(Color(theme: .warning))
                }
                if let preview = row.preview {
                    Text(preview)
                        .font(.subheadline)
                        .foregroundStyle(Color(theme: .secondaryText))
                        .lineLimit(2)
                }
            }
            .padding(.vertical, 4)
            .accessibilityElement(children: .ignore)
            .accessibilityLabel(row.accessibilityLabel(now: context.date))
        }
    }
}

#Preview {
    List(ChatFixtures.rows + [ConversationRow(DiffFixtures.codexConversation)]) { row in
        ConversationRowView(row: row)
    }
}
