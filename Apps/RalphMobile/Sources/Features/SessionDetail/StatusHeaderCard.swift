import RalphMobilePresentation
import SwiftUI
import UIKit

/// Section 1: the run's status header.
struct StatusHeaderCard: View {
    let header: StatusHeader
    let onExport: () -> Void

    var body: some View {
        VStack(alignment: .leading, spacing: 10) {
            HStack(spacing: 6) {
                SessionBadgeView(badge: header.mode)
                if let status = header.status { SessionBadgeView(badge: status) }
                Spacer()
                Button(action: onExport) {
                    Label("Export", systemImage: "square.and.arrow.up")
                }
                .accessibilityLabel("Export this session")
            }
            Text(header.title)
                .font(.title3.weight(.semibold))
                .foregroundStyle(Color(theme: .text))
                .accessibilityAddTraits(.isHeader)
            if let ended = header.endedText {
                Text(ended).font(.subheadline).foregroundStyle(Color(theme: .warning))
            }
            if let unreachable = header.unreachableText {
                Label(unreachable, systemImage: "exclamationmark.triangle.fill")
                    .font(.subheadline.weight(.semibold))
                    .foregroundStyle(Color(theme: .danger))
            }
            Grid(alignment: .leading, horizontalSpacing: 12, verticalSpacing: 6) {
                ForEach(header.rows) { row in
                    GridRow {
                        Text(row.label)
                            .font(.subheadline)
                            .foregroundStyle(Color(theme: .secondaryText))
                        if let hat = row.hat {
                            HatBadgeView(hat: hat)
                        } else {
                            Text(row.value)
                                .font(.subheadline)
                                .foregroundStyle(Color(theme: .text))
                        }
                    }
                    .accessibilityElement(children: .ignore)
                    .accessibilityLabel(row.accessibilityLabel)
                }
            }
            Button {
                UIPasteboard.general.string = header.fullID
            } label: {
                Label("Copy id", systemImage: "doc.on.doc")
            }
            .font(.footnote)
            .accessibilityLabel("Copy the full id \(header.fullID)")
        }
        .padding()
        .frame(maxWidth: .infinity, alignment: .leading)
        .background(Color(theme: .surfaceRaised), in: RoundedRectangle(cornerRadius: 12))
    }
}

#Preview("Live") {
    StatusHeaderCard(header: SessionsFixtures.header, onExport: {})
        .padding()
        .background(Color(theme: .background))
}

#Preview("Ended") {
    StatusHeaderCard(header: SessionsFixtures.endedHeader, onExport: {})
        .padding()
        .background(Color(theme: .background))
}
