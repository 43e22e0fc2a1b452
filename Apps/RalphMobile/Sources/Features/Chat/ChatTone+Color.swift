import RalphMobilePresentation
import SwiftUI

extension ChatTone {
    /// The theme colour of a tone.
    var color: Color {
        switch self {
        case .neutral: Color(theme: .secondaryText)
        case .active: Color(theme: .accent)
        case .attention: Color(theme: .warning)
        case .warning: Color(theme: .warning)
        case .danger: Color(theme: .danger)
        case .success: Color(theme: .success)
        }
    }
}

/// A small capsule with a word in a tone's colour (a status, a state).
struct ChatBadge: View {
    let text: String
    let tone: ChatTone

    var body: some View {
        Text(text)
            .badgeText(tone.color)
            .overlay(Capsule().stroke(tone.color, lineWidth: 1))
    }
}

#Preview {
    VStack(alignment: .leading) {
        ChatBadge(text: "running", tone: .active)
        ChatBadge(text: "needs approval", tone: .attention)
        ChatBadge(text: "error", tone: .danger)
        ChatBadge(text: "done", tone: .success)
        ChatBadge(text: "idle", tone: .neutral)
    }
    .padding()
}
