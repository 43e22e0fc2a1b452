import RalphMobilePresentation
import SwiftUI

/// The hosts of a cluster on the sessions list, one row per host (the list shows the section's banner at its top).
struct HostsSectionView: View {
    let section: HostsSection

    var body: some View {
        Section {
            ForEach(section.rows) { row in
                HostRowView(row: row)
            }
        } header: {
            Text(section.title)
        } footer: {
            Text(section.summary)
        }
    }
}

/// One host: its name (and "this server"), online or offline, when it was last heard from, its runs.
struct HostRowView: View {
    let row: HostRow

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            HStack(spacing: 6) {
                Image(systemName: "server.rack")
                    .foregroundStyle(Color(theme: row.state.tone.themeColor))
                Text(row.name)
                    .font(.headline)
                    .foregroundStyle(Color(theme: .text))
                SessionBadgeView(badge: row.state)
                if let selfText = row.selfText {
                    Text(selfText)
                        .font(.caption)
                        .foregroundStyle(Color(theme: .secondaryText))
                }
            }
            Text("\(row.runsText) · \(row.lastSeenText)")
                .font(.footnote)
                .foregroundStyle(Color(theme: .secondaryText))
            Text(row.versionText)
                .font(.footnote.monospaced())
                .foregroundStyle(Color(theme: .secondaryText))
        }
        .padding(.vertical, 2)
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(row.accessibilityLabel)
    }
}

/// The host a run belongs to, in a cluster: its name beside the run's badges, in the danger colour while it is offline.
struct HostLabelView: View {
    let name: String
    let isOffline: Bool

    var body: some View {
        Label(name, systemImage: "server.rack")
            .font(.caption.weight(.semibold))
            .foregroundStyle(Color(theme: isOffline ? .danger : .secondaryText))
            .lineLimit(1)
            .accessibilityLabel(isOffline ? "host \(name), offline" : "host \(name)")
    }
}

#Preview("Hosts") {
    List {
        if let section = SessionsFixtures.hostsSection {
            HostsSectionView(section: section)
        }
    }
    .scrollContentBackground(.hidden)
    .background(Color(theme: .background))
}
