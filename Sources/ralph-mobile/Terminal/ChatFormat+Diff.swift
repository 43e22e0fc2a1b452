import Foundation
import RalphAPI

/// File diffs in the terminal: a summary line per file, then the unified diff with `---`/`+++` headers in bold, `@@`
/// hunk lines in cyan, added lines in green and removed lines in the theme's red; plain text when colours are off.
extension ChatFormat {
    /// Every file of an edit: its summary, then its diff (or why there is none), each line indented by `indent`.
    func diffs(_ diffs: [FileDiff], indent: String = "    ") -> String {
        diffs.map { diff($0, indent: indent) }.joined(separator: "\n")
    }

    /// One file: `✎ notes.txt · +1 −1`, the diff's lines, and what was left out.
    func diff(_ d: FileDiff, indent: String = "    ") -> String {
        var lines = [indent + theme.paint("✎ " + Self.diffSummary(d), d.error == nil ? Theme.white : Theme.pink, bold: true)]
        if let error = d.error, !error.isEmpty {
            lines.append(indent + "  " + theme.bad("no diff: " + error))
        } else if !d.binary {
            for line in d.diff.split(separator: "\n", omittingEmptySubsequences: false).dropLast(d.diff.hasSuffix("\n") ? 1 : 0) {
                lines.append(indent + "  " + diffLine(String(line)))
            }
        }
        if let note = d.note, !note.isEmpty { lines.append(indent + "  " + theme.dim("note: " + note)) }
        if d.truncated {
            let omitted = d.omittedLines.map { "\($0) more line" + ($0 == 1 ? "" : "s") + " not shown" } ?? "the rest is not shown"
            lines.append(indent + "  " + theme.dim("… " + omitted))
        }
        return lines.joined(separator: "\n")
    }

    /// One line of a unified diff, coloured by its first characters.
    func diffLine(_ line: String) -> String {
        if line.hasPrefix("--- ") || line.hasPrefix("+++ ") { return theme.paint(line, Theme.white, bold: true) }
        if line.hasPrefix("@@") { return theme.paint(line, Theme.cyan) }
        if line.hasPrefix("+") { return theme.paint(line, Theme.green) }
        if line.hasPrefix("-") { return theme.paint(line, Theme.pink) }
        if line.hasPrefix("\\") { return theme.dim(line) }
        return line
    }

    /// `notes.txt · +1 −1`, `fresh.txt · new file · +2`, `logo.png · binary file changed`, `x · no diff`: the path as the
    /// diff's header names it (relative to the conversation's directory), else as the tool named it.
    static func diffSummary(_ d: FileDiff) -> String {
        let header = d.diff.split(separator: "\n", maxSplits: 2).prefix(2).compactMap { line -> String? in
            guard line.hasPrefix("+++ b/") || (line.hasPrefix("--- a/") && d.kind == .delete) else { return nil }
            return String(line.dropFirst(6))
        }
        var parts = [d.kind == .move ? d.path + " → " + (d.movePath ?? "?") : header.last ?? d.path]
        switch d.kind {
        case .add: parts.append("new file")
        case .delete: parts.append("deleted")
        case .move: parts.append("moved")
        default: break
        }
        if d.error != nil {
            parts.append("no diff")
        } else if d.binary {
            parts.append("binary file changed")
        } else {
            let counts = [d.added > 0 ? "+\(d.added)" : nil, d.removed > 0 ? "−\(d.removed)" : nil].compactMap { $0 }
            parts.append(counts.isEmpty ? "no changes" : counts.joined(separator: " "))
        }
        return parts.joined(separator: " · ")
    }
}
