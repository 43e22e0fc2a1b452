import RalphAPI
import RalphMobilePresentation
import SwiftUI

/// The files of an edit under a heading (`What it will change`, `What it changed`), one ``DiffFileView`` each.
struct DiffListView: View {
    let title: String
    let files: [DiffFile]

    var body: some View {
        VStack(alignment: .leading, spacing: 10) {
            Text(title).font(.caption.bold())
            ForEach(files) { file in
                DiffFileView(file: file)
            }
        }
    }
}

/// One file of an edit: its summary line, a note, then its lines in a monospaced block that scrolls sideways — both
/// line numbers, the sign, the text in its token colours, added lines on green and removed lines on red — and what was
/// left out. A binary file or a file without a diff says so instead of lines.
struct DiffFileView: View {
    let file: DiffFile

    var body: some View {
        VStack(alignment: .leading, spacing: 4) {
            DiffSummaryView(summary: file.summary)
            if let note = file.summary.note {
                Text(note)
                    .font(.caption)
                    .foregroundStyle(Color(theme: .secondaryText))
            }
            if file.hasLines {
                ScrollView(.horizontal) {
                    VStack(alignment: .leading, spacing: 0) {
                        ForEach(file.hunks) { hunk in
                            DiffHunkHeaderView(hunk: hunk)
                            ForEach(hunk.lines) { line in
                                DiffLineView(line: line)
                            }
                        }
                    }
                    .font(.caption.monospaced())
                    .padding(.vertical, 4)
                }
                .background(Color(theme: .surface), in: RoundedRectangle(cornerRadius: 6))
            } else if let empty = file.emptyText {
                Text(empty)
                    .font(.footnote)
                    .foregroundStyle(file.summary.tone.color)
            }
            if let cut = file.summary.truncationText {
                Text(cut)
                    .font(.caption)
                    .foregroundStyle(Color(theme: .secondaryText))
            }
        }
        .accessibilityElement(children: .contain)
    }
}

/// `Sources/Clock.swift  new file  +4 −2`.
struct DiffSummaryView: View {
    let summary: DiffSummary

    var body: some View {
        HStack(spacing: 6) {
            Image(systemName: "doc.text")
                .foregroundStyle(Color(theme: .secondaryText))
                .accessibilityHidden(true)
            Text(summary.title)
                .font(.subheadline.monospaced())
                .lineLimit(1)
                .truncationMode(.head)
            if let kind = summary.kindText {
                ChatBadge(text: kind, tone: .neutral)
            }
            if let state = summary.stateText {
                ChatBadge(text: state, tone: summary.tone)
            }
            Spacer(minLength: 4)
            if let added = summary.addedText {
                Text(added).foregroundStyle(Color(theme: .success))
            }
            if let removed = summary.removedText {
                Text(removed).foregroundStyle(Color(theme: .danger))
            }
        }
        .font(.caption.monospaced().bold())
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(summary.accessibilityLabel)
    }
}

/// `@@ -1,3 +1,4 @@ func now()`, across the block.
struct DiffHunkHeaderView: View {
    let hunk: DiffHunk

    var body: some View {
        Text(hunk.header)
            .foregroundStyle(Color(theme: .accent))
            .lineLimit(1)
            .padding(.horizontal, 6)
            .padding(.vertical, 2)
            .frame(maxWidth: .infinity, alignment: .leading)
            .background(Color(theme: .surfaceRaised))
            .accessibilityLabel(hunk.accessibilityLabel)
    }
}

/// One line: old and new numbers, the sign, the text in token colours, on its kind's background.
struct DiffLineView: View {
    let line: DiffLine

    var body: some View {
        HStack(spacing: 6) {
            Text(line.oldNumberText)
            Text(line.newNumberText)
            Text(line.sign.isEmpty ? " " : line.sign)
                .foregroundStyle(Color(theme: line.signColor))
            if line.kind == .marker {
                Text(line.text).italic()
            } else {
                Text(Self.attributed(line.tokens))
            }
        }
        .foregroundStyle(Color(theme: .secondaryText))
        .lineLimit(1)
        .fixedSize()
        .padding(.horizontal, 6)
        .frame(maxWidth: .infinity, alignment: .leading)
        .background(line.background.map { Color(theme: $0) } ?? Color.clear)
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(line.accessibilityLabel)
    }

    /// The tokens as one string, each run in its colour.
    static func attributed(_ tokens: [SyntaxToken]) -> AttributedString {
        tokens.reduce(into: AttributedString()) { text, token in
            var run = AttributedString(token.text)
            run.foregroundColor = Color(theme: token.color)
            text.append(run)
        }
    }
}

#Preview("Files") {
    ScrollView {
        DiffListView(
            title: "What it will change",
            files: DiffFile.files([
                DiffFixtures.swiftEdit, DiffFixtures.pythonAdd, DiffFixtures.failedEdit, DiffFixtures.binaryWrite, DiffFixtures.truncated,
            ])
        )
        .padding()
    }
    .background(Color(theme: .background))
}
