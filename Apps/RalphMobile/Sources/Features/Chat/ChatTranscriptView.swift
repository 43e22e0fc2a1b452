import RalphAPI
import RalphMobilePresentation
import SwiftUI

/// The turns of a conversation: what was asked, the reply's segments with their tool calls, the text still streaming,
/// the turn's cost, and its error.
struct ChatTranscriptView: View {
    let turns: [ChatTurn]
    let canDecide: Bool
    var onReview: @MainActor (String) -> Void = { _ in }

    var body: some View {
        LazyVStack(alignment: .leading, spacing: 16) {
            ForEach(turns) { turn in
                ChatTurnView(turn: turn, canDecide: canDecide, onReview: onReview)
                    .id(turn.id)
            }
        }
    }
}

struct ChatTurnView: View {
    let turn: ChatTurn
    let canDecide: Bool
    var onReview: @MainActor (String) -> Void = { _ in }

    var body: some View {
        VStack(alignment: .leading, spacing: 10) {
            if let prompt = turn.prompt {
                if prompt.isAgentNote {
                    AgentNoteView(prompt: prompt)
                } else {
                    UserBubble(text: prompt.text, accessibilityText: prompt.accessibilityLabel)
                }
            }
            ForEach(turn.replies) { reply in
                VStack(alignment: .leading, spacing: 8) {
                    if reply.hasText {
                        ChatMarkdownView(markdown: reply.markdown)
                            .accessibilityElement(children: .contain)
                            .accessibilityLabel("Claude")
                    }
                    ForEach(reply.tools) { tool in
                        ToolCallView(item: tool, canDecide: canDecide, onReview: onReview)
                    }
                }
            }
            if let streaming = turn.streaming {
                ChatMarkdownView(markdown: streaming)
                    .accessibilityLabel("Claude is writing")
            }
            if let footer = turn.footer {
                Text(footer)
                    .font(.caption)
                    .foregroundStyle(Color(theme: .secondaryText))
            }
            if let error = turn.error {
                VStack(alignment: .leading, spacing: 4) {
                    Text(error.title).font(.subheadline.bold())
                    if let hint = error.hint {
                        Text(hint).font(.footnote)
                    }
                }
                .foregroundStyle(Color(theme: .danger))
                .padding(10)
                .frame(maxWidth: .infinity, alignment: .leading)
                .background(Color(theme: .surface), in: RoundedRectangle(cornerRadius: 10))
                .accessibilityElement(children: .combine)
            }
        }
        .accessibilityElement(children: .contain)
        .accessibilityLabel(turn.accessibilityHeading ?? "")
    }
}

/// What the person sent, on the right.
struct UserBubble: View {
    let text: String
    let accessibilityText: String

    var body: some View {
        HStack {
            Spacer(minLength: 40)
            Text(text)
                .font(.body)
                .foregroundStyle(Color(theme: .background))
                .padding(12)
                .background(Color(theme: .accent), in: RoundedRectangle(cornerRadius: 14))
                .textSelection(.enabled)
                .accessibilityLabel(accessibilityText)
        }
    }
}

/// A turn Claude started by itself: a small note saying what woke it.
struct AgentNoteView: View {
    let prompt: ChatPrompt
    @State private var showsAll = false

    var body: some View {
        HStack(alignment: .top, spacing: 8) {
            Image(systemName: "arrow.clockwise")
                .accessibilityHidden(true)
            VStack(alignment: .leading, spacing: 4) {
                Text(showsAll ? prompt.text : prompt.preview)
                    .font(.footnote)
                Text(ChatPrompt.agentNoteCaption)
                    .font(.caption)
                if prompt.isCollapsed && !showsAll {
                    Button("Show all") { showsAll = true }
                        .font(.caption)
                        .accessibilityLabel("Show the whole note")
                }
            }
        }
        .foregroundStyle(Color(theme: .secondaryText))
        .padding(8)
        .background(Color(theme: .surface), in: RoundedRectangle(cornerRadius: 8))
        .accessibilityElement(children: .combine)
    }
}

/// A message sent and not started yet.
struct QueuedMessageView: View {
    let message: ChatQueuedMessage

    var body: some View {
        VStack(alignment: .trailing, spacing: 4) {
            UserBubble(text: message.text, accessibilityText: message.accessibilityLabel)
                .opacity(0.6)
            Text(message.label)
                .font(.caption)
                .foregroundStyle(Color(theme: .secondaryText))
        }
        .frame(maxWidth: .infinity, alignment: .trailing)
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(message.accessibilityLabel)
    }
}

#Preview {
    ScrollView {
        ChatTranscriptView(turns: ChatFixtures.turns, canDecide: true)
            .padding()
        QueuedMessageView(message: ChatQueuedMessage(turnID: "t4", text: "Then update the changelog.", mode: .queue, position: 1))
            .padding()
    }
    .background(Color(theme: .background))
}
