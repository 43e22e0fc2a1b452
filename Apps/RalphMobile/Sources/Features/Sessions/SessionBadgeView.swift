import RalphMobilePresentation
import SwiftUI

/// The theme colour of a tone.
extension BadgeTone {
    var themeColor: ThemeColor {
        switch self {
        case .success: .success
        case .warning: .warning
        case .danger: .danger
        case .info: .info
        case .neutral: .secondaryText
        }
    }
}

extension Text {
    /// The words of a small capsule badge (a status, a hat, a state): small and bold, in `color`, padded for the capsule
    /// drawn behind or around them.
    func badgeText(_ color: Color) -> some View {
        font(.caption.weight(.semibold))
            .padding(.horizontal, 8)
            .padding(.vertical, 2)
            .foregroundStyle(color)
    }
}

/// A run's mode or status as a small capsule.
struct SessionBadgeView: View {
    let badge: SessionBadge

    var body: some View {
        Text(badge.text)
            .badgeText(Color(theme: badge.tone.themeColor))
            .background(Color(theme: badge.tone.themeColor).opacity(0.15), in: Capsule())
            .accessibilityLabel(badge.accessibilityLabel)
    }
}

/// A hat's name in its colour.
struct HatBadgeView: View {
    let hat: String

    var body: some View {
        Text(hat)
            .badgeText(Color(theme: .hat(hat)))
            .overlay(Capsule().stroke(Color(theme: .hat(hat)), lineWidth: 1))
            .accessibilityLabel("hat \(hat)")
    }
}

/// The connection line of a screen.
struct ConnectionLineView: View {
    let line: ConnectionLine

    var body: some View {
        HStack(spacing: 6) {
            if line.showsActivity {
                ProgressView().controlSize(.mini)
            } else {
                Circle().fill(Color(theme: line.tone.themeColor)).frame(width: 8, height: 8)
            }
            Text(line.text)
                .font(.footnote)
                .foregroundStyle(Color(theme: line.tone.themeColor))
        }
        .accessibilityElement(children: .ignore)
        .accessibilityLabel("Connection: \(line.text)")
    }
}

#Preview("Badges") {
    VStack(alignment: .leading, spacing: 12) {
        ForEach(SessionsFixtures.rows) { row in
            HStack {
                SessionBadgeView(badge: row.mode)
                if let status = row.status { SessionBadgeView(badge: status) }
                if let hat = row.hat { HatBadgeView(hat: hat) }
            }
        }
        ConnectionLineView(line: SessionsFixtures.listConnection)
        ConnectionLineView(line: SessionsFixtures.listReconnecting)
    }
    .padding()
    .background(Color(theme: .background))
}
