import RalphMobilePresentation
import SwiftUI
import UIKit

/// A reply's markdown blocks, one under the other.
struct ChatMarkdownView: View {
    let markdown: ChatMarkdown

    var body: some View {
        VStack(alignment: .leading, spacing: 10) {
            ForEach(markdown.blocks) { block in
                ChatMarkdownBlockView(block: block)
            }
        }
        .textSelection(.enabled)
    }
}

/// One block: a paragraph, heading, code block, list, quote, table or rule.
struct ChatMarkdownBlockView: View {
    let block: ChatMarkdownBlock

    var body: some View {
        switch block.kind {
        case .paragraph(let inline):
            Text(inline.attributed)
                .font(.body)
                .fixedSize(horizontal: false, vertical: true)
        case .heading(let level, let inline):
            Text(inline.attributed)
                .font(level <= 1 ? .title2.bold() : level == 2 ? .title3.bold() : .headline)
                .accessibilityAddTraits(.isHeader)
        case .code(let language, let text, let isClosed):
            ChatCodeBlockView(language: language, text: text, isClosed: isClosed, accessibilityText: block.accessibilityLabel)
        case .list(let ordered, let items):
            VStack(alignment: .leading, spacing: 4) {
                ForEach(Array(items.enumerated()), id: \.offset) { _, item in
                    HStack(alignment: .firstTextBaseline, spacing: 6) {
                        Text(item.marker(ordered: ordered))
                            .foregroundStyle(Color(theme: .secondaryText))
                            .accessibilityHidden(true)
                        Text(item.content.attributed)
                            .fixedSize(horizontal: false, vertical: true)
                    }
                    .padding(.leading, CGFloat(item.level) * 16)
                }
            }
        case .quote(let inline):
            Text(inline.attributed)
                .italic()
                .foregroundStyle(Color(theme: .secondaryText))
                .padding(.leading, 12)
                .overlay(alignment: .leading) {
                    Rectangle().fill(Color(theme: .accent)).frame(width: 3)
                }
        case .table(let header, let rows):
            ScrollView(.horizontal) {
                Grid(alignment: .leading, horizontalSpacing: 12, verticalSpacing: 6) {
                    GridRow {
                        ForEach(Array(header.enumerated()), id: \.offset) { _, cell in
                            Text(cell.attributed).font(.subheadline.bold())
                        }
                    }
                    Divider()
                    ForEach(Array(rows.enumerated()), id: \.offset) { _, row in
                        GridRow {
                            ForEach(Array(row.enumerated()), id: \.offset) { _, cell in
                                Text(cell.attributed).font(.subheadline)
                            }
                        }
                    }
                }
                .padding(8)
            }
            .background(Color(theme: .surfaceRaised), in: RoundedRectangle(cornerRadius: 8))
        case .rule:
            Divider()
        }
    }
}

/// A code block: its language, its text in a monospaced font that scrolls sideways, and Copy.
struct ChatCodeBlockView: View {
    let language: String?
    let text: String
    let isClosed: Bool
    let accessibilityText: String

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            HStack {
                Text(ChatMarkdownBlock.codeCaption(language))
                    .font(.caption.monospaced())
                    .foregroundStyle(Color(theme: .secondaryText))
                Spacer()
                Button {
                    UIPasteboard.general.string = text
                } label: {
                    Label("Copy", systemImage: "doc.on.doc")
                        .font(.caption)
                }
                .accessibilityLabel("Copy the code")
            }
            ScrollView(.horizontal) {
                Text(text)
                    .font(.callout.monospaced())
                    .foregroundStyle(Color(theme: .text))
                    .fixedSize(horizontal: true, vertical: true)
                    .textSelection(.enabled)
                    .accessibilityLabel(accessibilityText)
            }
        }
        .padding(10)
        .background(Color(theme: .surfaceRaised), in: RoundedRectangle(cornerRadius: 8))
        .overlay {
            RoundedRectangle(cornerRadius: 8)
                .stroke(isClosed ? Color.clear : Color(theme: .accent).opacity(0.6), lineWidth: 1)
        }
    }
}

#Preview {
    ScrollView {
        ChatMarkdownView(markdown: ChatMarkdown(ChatFixtures.reply))
            .padding()
    }
    .background(Color(theme: .background))
}

#Preview("Streaming, fence still open") {
    ChatMarkdownView(markdown: ChatMarkdown(ChatFixtures.streamingText))
        .padding()
        .background(Color(theme: .background))
}
