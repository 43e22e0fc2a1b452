import RalphMobilePresentation
import SwiftUI

/// A titled card of the detail screen.
struct DetailCard<Content: View, Accessory: View>: View {
    let title: String
    @ViewBuilder let accessory: () -> Accessory
    @ViewBuilder let content: () -> Content

    init(_ title: String, @ViewBuilder accessory: @escaping () -> Accessory, @ViewBuilder content: @escaping () -> Content) {
        self.title = title
        self.accessory = accessory
        self.content = content
    }

    var body: some View {
        VStack(alignment: .leading, spacing: 10) {
            HStack {
                Text(title)
                    .font(.headline)
                    .foregroundStyle(Color(theme: .text))
                    .accessibilityAddTraits(.isHeader)
                Spacer()
                accessory()
            }
            content()
        }
        .padding()
        .frame(maxWidth: .infinity, alignment: .leading)
        .background(Color(theme: .surface), in: RoundedRectangle(cornerRadius: 12))
    }
}

extension DetailCard where Accessory == EmptyView {
    init(_ title: String, @ViewBuilder content: @escaping () -> Content) {
        self.init(title, accessory: { EmptyView() }, content: content)
    }
}

/// A grid of labelled figures.
struct StatGrid: View {
    let stats: [SectionStat]

    var body: some View {
        LazyVGrid(columns: [GridItem(.adaptive(minimum: 96), alignment: .leading)], alignment: .leading, spacing: 12) {
            ForEach(stats) { stat in
                VStack(alignment: .leading, spacing: 2) {
                    Text(stat.value)
                        .font(.title3.monospacedDigit().weight(.semibold))
                        .foregroundStyle(Color(theme: .text))
                    Text(stat.label)
                        .font(.caption)
                        .foregroundStyle(Color(theme: .secondaryText))
                }
                .accessibilityElement(children: .ignore)
                .accessibilityLabel(stat.accessibilityLabel)
            }
        }
    }
}

/// Secondary text: a note, an empty state.
struct NoteText: View {
    let text: String

    init(_ text: String) { self.text = text }

    var body: some View {
        Text(text)
            .font(.footnote)
            .foregroundStyle(Color(theme: .secondaryText))
    }
}

#Preview("Card") {
    DetailCard("Iterations") {
        StatGrid(stats: SessionsFixtures.iterationStats.stats)
        NoteText(SessionsFixtures.hatFlow.summary)
    }
    .padding()
    .background(Color(theme: .background))
}

/// A card of a section that may have nothing to show yet: the section's note then (`No token reports yet`), else its
/// content.
struct SectionCard<Content: View>: View {
    let title: String
    let emptyText: String?
    @ViewBuilder let content: () -> Content

    init(_ title: String, emptyText: String?, @ViewBuilder content: @escaping () -> Content) {
        self.title = title
        self.emptyText = emptyText
        self.content = content
    }

    var body: some View {
        DetailCard(title) {
            if let emptyText {
                NoteText(emptyText)
            } else {
                content()
            }
        }
    }
}
