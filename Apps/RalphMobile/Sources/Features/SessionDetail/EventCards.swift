import RalphMobilePresentation
import SwiftUI

/// One event: id, topic, hat, time and its payload (expandable when long).
struct EventRowView: View {
    let row: EventRow

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            HStack(spacing: 6) {
                Text(row.idText).font(.caption.monospaced()).foregroundStyle(Color(theme: .secondaryText))
                Text(row.topic).font(.subheadline.monospaced().weight(.semibold)).foregroundStyle(Color(theme: .text))
                if let hat = row.hat { HatBadgeView(hat: hat) }
                if let triggered = row.triggeredText {
                    Text(triggered).font(.caption).foregroundStyle(Color(theme: .secondaryText))
                }
                Spacer()
                Text(row.timeText).font(.caption.monospacedDigit()).foregroundStyle(Color(theme: .secondaryText))
            }
            if row.isExpandable {
                DisclosureGroup {
                    Text(row.payload)
                        .font(.caption.monospaced())
                        .textSelection(.enabled)
                        .frame(maxWidth: .infinity, alignment: .leading)
                } label: {
                    Text(row.preview).font(.caption).foregroundStyle(Color(theme: .secondaryText)).lineLimit(1)
                }
                .accessibilityHint("Shows the whole payload")
            } else if !row.preview.isEmpty {
                Text(row.preview).font(.caption).foregroundStyle(Color(theme: .secondaryText))
            }
        }
        .accessibilityElement(children: .combine)
        .accessibilityLabel(row.accessibilityLabel)
    }
}

/// Section 7: recent events.
struct RecentEventsCard: View {
    let section: RecentEventsSection

    var body: some View {
        SectionCard("Recent events", emptyText: section.emptyText) {
            ForEach(section.rows) { row in
                EventRowView(row: row)
                Divider()
            }
        }
    }
}

/// Section 8: the live event stream, newest first.
struct EventStreamCard: View {
    let section: EventStreamSection

    var body: some View {
        DetailCard("Event stream", accessory: { ConnectionLineView(line: section.connection) }) {
            Text(section.countText)
                .font(.footnote)
                .foregroundStyle(Color(theme: .secondaryText))
                .accessibilityAddTraits(.updatesFrequently)
            if let reset = section.resetText { NoteText(reset) }
            if let ended = section.endedText {
                Text(ended).font(.footnote.weight(.semibold)).foregroundStyle(Color(theme: .info))
            }
            if let empty = section.emptyText {
                NoteText(empty)
            } else {
                LazyVStack(alignment: .leading, spacing: 8) {
                    ForEach(section.rows) { row in
                        EventRowView(row: row)
                        Divider()
                    }
                }
            }
        }
    }
}

#Preview("Events") {
    ScrollView {
        VStack(spacing: 12) {
            EventStreamCard(section: SessionsFixtures.eventStream)
            RecentEventsCard(section: SessionsFixtures.recentEvents)
        }
        .padding()
    }
    .background(Color(theme: .background))
}
