import Foundation
import RalphAPI

/// What an edit does to one file, in one line, read from a ``RalphAPI/FileDiff`` without parsing its text (cheap enough
/// for every row of a list): `notes.txt · +1 −1`, `fresh.txt · new file · +2`, `logo.png · binary file changed`,
/// `outside.txt · no diff`.
public struct DiffSummary: Hashable, Sendable, Identifiable {
    public let id: String
    /// The file as the diff names it (relative to the conversation's directory); `old → new` for a move.
    public let title: String
    /// `new file`, `deleted`, `moved from old.txt`; nil for a change in place.
    public let kindText: String?
    /// `+1 −1`, `+2`, `−3`; nil when there are no lines to count (binary, no diff, no change).
    public let countsText: String?
    /// `binary file changed`, `no changes`, `no diff`; nil when the counts say it all.
    public let stateText: String?
    /// Why there is no diff, in words: `No diff: 'x' is outside the workspace roots.`
    public let errorText: String?
    /// `12 more lines not shown` when the server cut the diff.
    public let truncationText: String?
    /// Something to know about the diff shown (it was compared as a whole, the file is replaced …).
    public let note: String?
    public let added: Int
    public let removed: Int
    /// The tone of the summary: danger when there is no diff to read.
    public let tone: ChatTone

    public init(_ diff: FileDiff, index: Int = 0) {
        id = "\(index):\(diff.path)"
        let headers = Self.headerPaths(diff.diff)
        let from = headers.old ?? Self.shown(diff.path)
        let to = headers.new ?? diff.movePath.map(Self.shown) ?? from
        title = diff.kind == .move ? from + " → " + to : (diff.kind == .delete ? from : (headers.new ?? from))
        switch diff.kind {
        case .add: kindText = "new file"
        case .delete: kindText = "deleted"
        case .move: kindText = "moved"
        default: kindText = nil
        }
        added = diff.added
        removed = diff.removed
        let counts = [diff.added > 0 ? "+\(diff.added)" : nil, diff.removed > 0 ? "−\(diff.removed)" : nil].compactMap { $0 }
        if let error = diff.error, !error.isEmpty {
            stateText = "no diff"
            countsText = nil
            errorText = "No diff: " + error + (error.hasSuffix(".") ? "" : ".")
        } else if diff.binary {
            stateText = "binary file changed"
            countsText = nil
            errorText = nil
        } else {
            stateText = counts.isEmpty && diff.kind != .move ? "no changes" : nil
            countsText = counts.isEmpty ? nil : counts.joined(separator: " ")
            errorText = nil
        }
        truncationText = diff.truncated ? Self.omitted(diff.omittedLines) : nil
        note = diff.note.flatMap { $0.isEmpty ? nil : $0 }
        tone = errorText == nil ? .neutral : .danger
    }

    /// `+4`, beside the title in the added colour; nil when no line is counted as added.
    public var addedText: String? { countsText != nil && added > 0 ? "+\(added)" : nil }
    /// `−2`, in the removed colour; nil when no line is counted as removed.
    public var removedText: String? { countsText != nil && removed > 0 ? "−\(removed)" : nil }

    /// `notes.txt · +1 −1`.
    public var text: String { [title, kindText, stateText, countsText].compactMap { $0 }.joined(separator: " · ") }

    /// For VoiceOver: `notes.txt: 1 line added, 1 line removed`.
    public var accessibilityLabel: String {
        var parts = [kindText, stateText].compactMap { $0 }
        if countsText != nil {
            if added > 0 { parts.append(Self.lines(added) + " added") }
            if removed > 0 { parts.append(Self.lines(removed) + " removed") }
        }
        if let truncationText { parts.append(truncationText) }
        return title + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }

    /// The summaries of several files, in one line: `notes.txt · +1 −1`, or `3 files · +4 −2`.
    public static func line(_ summaries: [DiffSummary]) -> String? {
        guard summaries.count > 1 else { return summaries.first?.text }
        let added = summaries.reduce(0) { $0 + $1.added }
        let removed = summaries.reduce(0) { $0 + $1.removed }
        let counts = [added > 0 ? "+\(added)" : nil, removed > 0 ? "−\(removed)" : nil].compactMap { $0 }
        return (["\(summaries.count) files"] + (counts.isEmpty ? [] : [counts.joined(separator: " ")])).joined(separator: " · ")
    }

    /// `1 more line not shown`, `1,200 more lines not shown`; when the count is not known, that the rest is not shown.
    static func omitted(_ count: Int?) -> String {
        guard let count, count > 0 else { return "The rest of the diff is not shown" }
        return ChatFormat.grouped(count) + (count == 1 ? " more line not shown" : " more lines not shown")
    }

    static func lines(_ count: Int) -> String { count == 1 ? "1 line" : "\(ChatFormat.grouped(count)) lines" }

    /// A path as a title: an absolute one by its last two parts (`…/app/notes.txt`).
    static func shown(_ path: String) -> String { path.hasPrefix("/") ? ChatFormat.shortPath(path) : path }

    /// The paths of the `---` / `+++` headers at the top of a diff (nil for `/dev/null` or no header), read from its
    /// first two lines only.
    static func headerPaths(_ diff: String) -> (old: String?, new: String?) {
        var old: String?
        var new: String?
        for line in diff.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).prefix(2) {
            if line.hasPrefix("--- ") { old = path(line.dropFirst(4), prefix: "a/") }
            if line.hasPrefix("+++ ") { new = path(line.dropFirst(4), prefix: "b/") }
        }
        return (old, new)
    }

    static func path(_ text: Substring, prefix: String) -> String? {
        let path = text.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if path == "/dev/null" || path.isEmpty { return nil }
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
