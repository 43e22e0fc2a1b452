import RalphMobilePresentation
import SwiftUI

/// A sparkline drawn from normalised points (x and y in 0…1, y up).
struct SparklineShape: Shape {
    let points: [Sparkline.Point]

    func path(in rect: CGRect) -> Path {
        var path = Path()
        for (index, point) in points.enumerated() {
            let location = CGPoint(x: rect.minX + point.x * rect.width, y: rect.maxY - point.y * rect.height)
            if index == 0 {
                path.move(to: location)
            } else {
                path.addLine(to: location)
            }
        }
        return path
    }
}

/// Section 2: token metrics with the sparkline.
struct TokenMetricsCard: View {
    let section: TokenMetricsSection

    var body: some View {
        SectionCard("Tokens", emptyText: section.emptyText) {
            StatGrid(stats: section.stats)
            if section.sparkline.isDrawable {
                SparklineShape(points: section.sparkline.points)
                    .stroke(Color(theme: .accent), style: StrokeStyle(lineWidth: 2, lineJoin: .round))
                    .frame(height: 44)
                    .padding(.vertical, 4)
                    .accessibilityElement()
                    .accessibilityLabel(section.sparklineAccessibilityLabel)
            }
            NoteText(section.sparklineCaption)
        }
    }
}

/// Section 3: the hat flow.
struct HatFlowCard: View {
    let section: HatFlowSection
    let onToggle: () -> Void

    var body: some View {
        SectionCard("Hat flow", emptyText: section.emptyText) {
            ScrollView(.horizontal, showsIndicators: false) {
                HStack {
                    ForEach(section.usage) { usage in
                        HStack(spacing: 4) {
                            HatBadgeView(hat: usage.hat)
                            Text(usage.text).font(.caption).foregroundStyle(Color(theme: .secondaryText))
                        }
                        .accessibilityElement(children: .ignore)
                        .accessibilityLabel(usage.accessibilityLabel)
                    }
                }
            }
            NoteText(section.summary)
            ForEach(section.changes) { change in
                VStack(alignment: .leading, spacing: 2) {
                    HStack(spacing: 6) {
                        if let from = change.from {
                            HatBadgeView(hat: from)
                        } else {
                            Text(change.fromText).font(.caption).foregroundStyle(Color(theme: .secondaryText))
                        }
                        Image(systemName: "arrow.right").font(.caption).accessibilityHidden(true)
                        HatBadgeView(hat: change.to)
                    }
                    Text(change.detailText).font(.caption.monospaced()).foregroundStyle(Color(theme: .secondaryText))
                }
                .accessibilityElement(children: .ignore)
                .accessibilityLabel(change.accessibilityLabel)
            }
            if let toggle = section.toggleLabel {
                Button(toggle, action: onToggle).font(.footnote)
            }
        }
    }
}

/// Section 4: backpressure.
struct BackpressureCard: View {
    let section: BackpressureSection

    var body: some View {
        SectionCard("Backpressure", emptyText: section.emptyText) {
            ForEach(section.checks) { check in
                HStack {
                    Text(check.name).foregroundStyle(Color(theme: .text))
                    Spacer()
                    Text(check.text).foregroundStyle(Color(theme: check.tone.themeColor))
                }
                .font(.subheadline)
                .accessibilityElement(children: .ignore)
                .accessibilityLabel(check.accessibilityLabel)
            }
            NoteText(section.footer)
        }
    }
}

/// Section 5: iteration stats and the latest iterations.
struct IterationStatsCard: View {
    let section: IterationStatsSection

    var body: some View {
        DetailCard("Iterations") {
            StatGrid(stats: section.stats)
            if let note = section.latestNote {
                NoteText(note)
            } else {
                Text("Latest iterations").font(.subheadline.weight(.semibold)).accessibilityAddTraits(.isHeader)
                ForEach(section.latest) { row in
                    HStack(spacing: 8) {
                        Text(row.numberText).font(.caption.monospaced())
                        if let hat = row.hat { HatBadgeView(hat: hat) }
                        Spacer()
                        Text(row.detailText).font(.caption).foregroundStyle(Color(theme: .secondaryText))
                    }
                    .accessibilityElement(children: .ignore)
                    .accessibilityLabel(row.accessibilityLabel)
                }
            }
        }
    }
}

#Preview("Metrics") {
    ScrollView {
        VStack(spacing: 12) {
            TokenMetricsCard(section: SessionsFixtures.tokens)
            HatFlowCard(section: SessionsFixtures.hatFlow, onToggle: {})
            BackpressureCard(section: SessionsFixtures.backpressure)
            IterationStatsCard(section: SessionsFixtures.iterationStats)
        }
        .padding()
    }
    .background(Color(theme: .background))
}
