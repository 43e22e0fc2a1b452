import Foundation
import RalphAPI

/// ralph's memories, `.ralph/agent/memories.md`: markdown with `## Patterns|Decisions|Fixes|Context` sections,
/// entries `### mem-<secs>-<4hex>`, content lines `> …` and `<!-- tags: a, b | created: YYYY-MM-DD -->`.
///
/// Locked like ralph does (sidecar `memories.md.lock`: shared to read, exclusive to write). Opened under the
/// workspace's ``RootDirectory``: in worktrees the file is ralph's symlink to the main repository's, which is followed
/// when it stays inside the root (writes go to the link's target, so the link survives); a link out of the root is
/// refused before anything is locked or written. Blocking.
public struct MemoryStore: Sendable {
    /// `<workspace>/.ralph/agent/memories.md`.
    public let path: String
    /// The root the workspace lies in, which every file is opened from.
    public let root: RootDirectory
    /// ralph's lock sidecar, next to the file (a worktree's is next to its link).
    public var lockPath: String { path + ".lock" }

    /// The store of `workspace` (a canonical path under `root`).
    public init(workspace: String, root: RootDirectory) {
        self.path = RalphLayout(workspace: workspace).memories
        self.root = root
    }

    /// The file's text and modification time; nil when there is no file.
    public func read() throws -> (content: String, modified: Date?)? {
        // Refuse a file that leads out of the root before the lock sidecar is created next to it.
        guard try root.status(path) != nil else { return nil }
        return try FileLock.withLock(lockPath, in: root, exclusive: false) { () throws(ConfinementError) -> (content: String, modified: Date?)? in
            guard let file = try root.readFile(path, limit: 16 << 20) else { return nil }
            return (file.text, file.status.modified)
        }
    }

    /// Replaces the file's content; returns the new modification time.
    public func write(_ content: String) throws -> Date? {
        _ = try root.status(path)
        return try FileLock.withLock(lockPath, in: root, exclusive: true) { () throws(ConfinementError) -> Date? in
            try root.writeAtomically(Data(content.utf8), to: path).modified
        }
    }

    static let sections = ["patterns": "pattern", "decisions": "decision", "fixes": "fix", "context": "context"]

    /// The entries ralph's parser would find: entries before any section are patterns; an entry without content
    /// lines is dropped; `>` lines without text are not content.
    public static func parse(_ text: String) -> [MemoryEntry] {
        var entries: [MemoryEntry] = []
        var type = "pattern"
        var current: MemoryEntry?
        func flush() {
            if let entry = current, !entry.content.isEmpty { entries.append(entry) }
            current = nil
        }
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if line.hasPrefix("## ") {
                let name = line.dropFirst(3).trimmingCharacters(in: .whitespaces).lowercased()
                if let section = sections[name] {
                    flush()
                    type = section
                }
            } else if line.hasPrefix("### mem-") {
                flush()
                let id = String(line.dropFirst(4).prefix { !$0.isWhitespace })
                if isMemoryID(id) { current = MemoryEntry(id: id, type: type, content: "", tags: [], created: nil) }
            } else if line.hasPrefix("> "), current != nil {
                let content = String(line.dropFirst(2))
                if !content.isEmpty { current!.content += (current!.content.isEmpty ? "" : "\n") + content }
            } else if line.hasPrefix("<!-- tags:"), current != nil, let bar = line.firstIndex(of: "|") {
                let tags = line[line.index(line.startIndex, offsetBy: 10)..<bar]
                current!.tags = tags.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                if let range = line.range(of: "created: ") { current!.created = String(line[range.upperBound...].prefix(10)) }
            }
        }
        flush()
        return entries
    }

    /// `mem-<digits>-<4 lowercase hex>`.
    static func isMemoryID(_ id: String) -> Bool {
        let parts = id.split(separator: "-")
        return parts.count == 3 && parts[0] == "mem" && !parts[1].isEmpty && parts[1].allSatisfy(\.isNumber) && parts[2].count == 4
            && parts[2].unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }
}
