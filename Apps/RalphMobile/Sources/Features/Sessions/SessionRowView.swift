import RalphMobilePresentation
import SwiftUI

/// One run in the sessions list.
struct SessionRowView: View {
    let row: SessionRow

    var body: some View {
        HStack(alignment: .top, spacing: 12) {
            Text(row.iconText)
                .font(.caption.monospaced().weight(.bold))
                .lineLimit(1)
                .minimumScaleFactor(0.6)
                .frame(width: 64, height: 44)
                .foregroundStyle(Color(theme: row.hat.map { ThemeColor.hat($0) } ?? .secondaryText))
                .background(Color(theme: .surfaceRaised), in: RoundedRectangle(cornerRadius: 8))
            VStack(alignment: .leading, spacing: 4) {
                HStack(spacing: 6) {
                    SessionBadgeView(badge: row.mode)
                    if let status = row.status { SessionBadgeView(badge: status) }
                    if let host = row.hostText {
                        HostLabelView(name: host, isOffline: row.isUnreachable)
                    }
                    if row.isHidden {
                        Image(systemName: "eye.slash").foregroundStyle(Color(theme: .secondaryText))
                    }
                }
                Text(row.title)
                    .font(.headline)
                    .foregroundStyle(Color(theme: .text))
                    .lineLimit(2)
                if let unreachable = row.unreachableText {
                    Text(unreachable)
                        .font(.subheadline.weight(.semibold))
                        .foregroundStyle(Color(theme: .danger))
                        .lineLimit(2)
                }
                if let control = row.controlText {
                    Text(control)
                        .font(.subheadline.weight(.semibold))
                        .foregroundStyle(Color(theme: .warning))
                        .lineLimit(2)
                }
                HStack(spacing: 8) {
                    Label(row.iterationText, systemImage: "arrow.triangle.2.circlepath")
                    if let hat = row.hat {
                        HatBadgeView(hat: hat)
                    } else {
                        Text(row.hatText).foregroundStyle(Color(theme: .secondaryText))
                    }
                }
                .font(.subheadline)
                Text("started \(row.startedRelative) · last event \(row.lastEventRelative)")
                    .font(.footnote)
                    .foregroundStyle(Color(theme: .secondaryText))
                Text(row.workspaceText)
                    .font(.footnote.monospaced())
                    .foregroundStyle(Color(theme: .secondaryText))
                    .lineLimit(1)
            }
        }
        .padding(.vertical, 4)
        .opacity(row.isHidden ? 0.6 : 1)
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(row.accessibilityLabel)
    }
}

#Preview("Rows") {
    List(SessionsFixtures.rows) { row in
        SessionRowView(row: row)
    }
    .scrollContentBackground(.hidden)
    .background(Color(theme: .background))
}

#Preview("Cluster rows") {
    List(SessionsFixtures.clusterRows) { row in
        SessionRowView(row: row)
    }
    .scrollContentBackground(.hidden)
    .background(Color(theme: .background))
}
