import RalphMobilePresentation
import SwiftUI

/// The top of a chat: where it runs, the agent, status, queue, cost, the live connection, and what the agent is doing now.
struct ChatHeaderView: View {
    let header: ChatHeader
    let workingLine: String?
    let workingTone: ChatTone

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            if let details = header.detailsLine {
                Text(details)
                    .font(.caption.monospaced())
                    .foregroundStyle(Color(theme: .secondaryText))
                    .lineLimit(1)
                    .help(header.path ?? "")
            }
            HStack(spacing: 8) {
                if let backend = header.backendText {
                    Text(backend).font(.caption.weight(.semibold))
                }
                ChatBadge(text: header.statusText, tone: header.statusTone)
                if let queued = header.queuedText {
                    Text(queued).font(.caption)
                }
                Spacer()
                if let cost = header.costText {
                    Text(cost).font(.caption)
                }
                Circle()
                    .fill(header.connectionTone.color)
                    .frame(width: 8, height: 8)
                    .accessibilityHidden(true)
                Text(header.connectionText).font(.caption)
                if let reconnects = header.reconnectsText {
                    Text(reconnects).font(.caption2)
                }
            }
            .foregroundStyle(Color(theme: .secondaryText))
            if let workingLine {
                HStack(spacing: 6) {
                    ProgressView()
                        .controlSize(.small)
                        .accessibilityHidden(true)
                    Text(workingLine)
                        .font(.footnote)
                        .foregroundStyle(workingTone.color)
                }
                .accessibilityElement(children: .combine)
                .accessibilityAddTraits(.updatesFrequently)
            }
        }
        .padding(.horizontal)
        .padding(.vertical, 6)
        .accessibilityElement(children: .combine)
        .accessibilityLabel(header.accessibilityLabel)
    }
}

#Preview {
    VStack {
        ChatHeaderView(header: ChatFixtures.header, workingLine: "Waiting for an approval", workingTone: .attention)
        Spacer()
    }
    .background(Color(theme: .background))
}
