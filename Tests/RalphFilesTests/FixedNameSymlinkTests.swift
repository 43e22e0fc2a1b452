import Foundation
import Testing

@testable import RalphFiles

/// A workspace `ws/` in a root, and outside the root a directory with a marked copy of every fixed-name ralph file
/// (in the layout ralph uses, so a `.ralph` link to it would look like a real state directory).
struct FixedNameFixture {
    let root = TempDir()
    let outside = TempDir()
    let marker = "SECRET-\(UUID().uuidString)"
    var ws: String { root.path + "/ws" }

    static let files = ["agent/memories.md", "agent/tasks.jsonl", "agent/scratchpad.md", "merge-queue.jsonl", "loops.json", "events-20260101-000000.jsonl"]

    init() {
        root.dir("ws/.ralph/agent")
        for file in Self.files { outside.file(".ralph/" + file, content(file)) }
    }

    /// The marked content of an outside file, valid in the file's own format.
    func content(_ file: String) -> String {
        switch file {
        case "agent/memories.md": "# Memories\n\n## Patterns\n\n### mem-1737372000-a1b2\n> \(marker)\n"
        case "agent/tasks.jsonl": #"{"id":"task-1-0001","title":"\#(marker)","status":"open","priority":1,"blocked_by":[],"created":"2026-01-01T00:00:00Z"}"# + "\n"
        case "merge-queue.jsonl": #"{"ts":"2026-01-01T00:00:00Z","loop_id":"loop-1","event":{"type":"queued","prompt":"\#(marker)"}}"# + "\n"
        case "loops.json": #"{"loops":[{"id":"loop-1","pid":1,"started":"2026-01-01T00:00:00Z","prompt":"\#(marker)","workspace":"/"}]}"#
        default: marker + "\n"
        }
    }

    /// Makes `.ralph/<file>` in the workspace a symbolic link to the outside copy.
    func linkOut(_ file: String) {
        let link = ws + "/.ralph/" + file
        try? FileManager.default.removeItem(atPath: link)
        try! FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside.path + "/.ralph/" + file)
    }

    /// Makes `.ralph` (or `.ralph/agent`) itself a link to the outside directory.
    func linkDirectoryOut(_ relative: String) {
        try! FileManager.default.removeItem(atPath: ws + "/" + relative)
        try! FileManager.default.createSymbolicLink(atPath: ws + "/" + relative, withDestinationPath: outside.path + "/" + relative)
    }

    /// Every file under the outside directory with its content.
    func outsideSnapshot() -> [String: String] { outside.contents() }

    func stores(_ resolution: RootDirectory.Resolution) -> (RootDirectory, MemoryStore, TaskStore, LoopRegistry, MergeQueue) {
        let root = RootDirectory(path: root.path, resolution: resolution)
        return (root, MemoryStore(workspace: ws, root: root), TaskStore(workspace: ws, root: root), LoopRegistry(workspace: ws, root: root), MergeQueue(workspace: ws, root: root))
    }

    /// Runs every read and write of every store, and says which of them did not refuse, and whether any served the marker.
    func attack(_ resolution: RootDirectory.Resolution) -> (accepted: [String], leaked: [String]) {
        let (root, memories, tasks, loops, queue) = stores(resolution)
        var accepted: [String] = []
        var leaked: [String] = []
        func run(_ name: String, _ body: () throws -> String) {
            do {
                let served = try body()
                accepted.append(name)
                if served.contains(marker) { leaked.append(name) }
            } catch {}
        }
        run("memories read") { try memories.read()?.content ?? "" }
        run("memories write") { _ = try memories.write("overwritten\n"); return "" }
        run("tasks load") { try tasks.load().map(\.title).joined() }
        run("tasks add") { try tasks.add(title: "planted", description: nil, priority: 1, blockedBy: [], loopID: nil).title }
        run("tasks update") { try tasks.setStatus(id: "task-1-0001", status: "closed").title }
        run("loops read") { try loops.allEntries().map(\.prompt).joined() }
        run("merge queue read") { let q = try queue.items(); return (q.pending + q.completed).map(\.prompt).joined() }
        run("scratchpad read") { try root.readFile(ws + "/.ralph/agent/scratchpad.md")?.text ?? "" }
        run("events append") {
            try EventFileAppender.appendReturningOffset(line: Array("planted".utf8), to: ws + "/.ralph/events-20260101-000000.jsonl", in: root)
            return ""
        }
        return (accepted, leaked)
    }

    /// Runs `attack` and expects that no operation served the marker and that nothing outside changed; returns the
    /// operations that did not refuse. `what` names the linked file or directory in failure messages.
    @discardableResult
    func expectNothingLeaksOrChanges(
        _ resolution: RootDirectory.Resolution, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String] {
        let before = outsideSnapshot()
        let (accepted, leaked) = attack(resolution)
        #expect(leaked.isEmpty, "\(what): served the outside content through \(leaked)", sourceLocation: sourceLocation)
        #expect(outsideSnapshot() == before, "\(what): the outside directory changed", sourceLocation: sourceLocation)
        return accepted
    }
}

@Suite("Fixed-name ralph files that link out of the root are never read, written, appended to or locked")
struct FixedNameSymlinkTests {
    static let resolutions: [RootDirectory.Resolution] = [.automatic, .componentWalk]

    @Test("each fixed name as a link to an outside file: reads and writes refuse, nothing outside changes, no lock file appears there", arguments: resolutions)
    func eachFixedName(resolution: RootDirectory.Resolution) {
        for file in FixedNameFixture.files {
            let f = FixedNameFixture()
            f.linkOut(file)
            f.expectNothingLeaksOrChanges(resolution, file)
        }
    }

    @Test("each store refuses its own linked file with a clear error naming it", arguments: resolutions)
    func clearErrors(resolution: RootDirectory.Resolution) {
        let f = FixedNameFixture()
        for file in ["agent/memories.md", "agent/tasks.jsonl", "merge-queue.jsonl", "loops.json", "events-20260101-000000.jsonl"] { f.linkOut(file) }
        let (root, memories, tasks, loops, queue) = f.stores(resolution)
        let error = { (file: String) in ConfinementError.symbolicLinkOutside("ws/.ralph/" + file) }
        #expect(throws: error("agent/memories.md")) { try memories.read() }
        #expect(throws: error("agent/memories.md")) { try memories.write("x") }
        #expect(throws: TaskStore.StoreError.refused(error("agent/tasks.jsonl"))) { try tasks.load() }
        #expect(throws: TaskStore.StoreError.refused(error("agent/tasks.jsonl"))) {
            try tasks.add(title: "t", description: nil, priority: 1, blockedBy: [], loopID: nil)
        }
        #expect(throws: error("loops.json")) { try loops.allEntries() }
        #expect(throws: error("merge-queue.jsonl")) { try queue.items() }
        #expect(throws: ConfinementError.symbolicLink("ws/.ralph/events-20260101-000000.jsonl")) {
            try EventFileAppender.appendReturningOffset(line: Array("x".utf8), to: f.ws + "/.ralph/events-20260101-000000.jsonl", in: root)
        }
        #expect(error("agent/memories.md").description == "'ws/.ralph/agent/memories.md' is a symbolic link out of the workspace root")
        // Refused before the lock: no sidecar was created, even inside.
        #expect(!FileManager.default.fileExists(atPath: f.ws + "/.ralph/agent/memories.md.lock"))
        #expect(!FileManager.default.fileExists(atPath: f.ws + "/.ralph/agent/tasks.jsonl.lock"))
    }

    @Test(".ralph itself, or .ralph/agent, a link to an outside directory: nothing of it is served or written", arguments: resolutions)
    func linkedDirectories(resolution: RootDirectory.Resolution) {
        for directory in [".ralph", ".ralph/agent"] {
            let f = FixedNameFixture()
            f.linkDirectoryOut(directory)
            let accepted = f.expectNothingLeaksOrChanges(resolution, directory)
            let agentOnly = ["loops read", "merge queue read", "events append"]
            #expect(accepted.allSatisfy { directory == ".ralph/agent" && agentOnly.contains($0) }, "\(directory): accepted \(accepted)")
        }
    }

    @Test("a lock sidecar planted as a link is refused: no lock file is created where it points", arguments: resolutions)
    func plantedSidecar(resolution: RootDirectory.Resolution) throws {
        let f = FixedNameFixture()
        f.root.file("ws/.ralph/agent/memories.md", "# Memories\n")
        f.root.file("ws/.ralph/agent/tasks.jsonl", "")
        let target = f.outside.path + "/planted.lock"
        try FileManager.default.createSymbolicLink(atPath: f.ws + "/.ralph/agent/memories.md.lock", withDestinationPath: target)
        try FileManager.default.createSymbolicLink(atPath: f.ws + "/.ralph/agent/tasks.jsonl.lock", withDestinationPath: "../../../other.lock")
        let (_, memories, tasks, _, _) = f.stores(resolution)
        #expect(throws: ConfinementError.self) { try memories.read() }
        #expect(throws: ConfinementError.self) { try memories.write("x") }
        #expect(throws: TaskStore.StoreError.self) { try tasks.load() }
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(!FileManager.default.fileExists(atPath: f.root.path + "/other.lock"))
        #expect(FileSystem.readText(f.ws + "/.ralph/agent/memories.md") == "# Memories\n")
    }

    @Test("a worktree's memories.md, ralph's absolute link into the main repository in the same root, is still read and written through", arguments: resolutions)
    func worktreeLinkStillWorks(resolution: RootDirectory.Resolution) throws {
        let f = FixedNameFixture()
        let main = f.root.file("ws/.ralph/agent/memories.md", "# Memories\n")
        let worktree = f.ws + "/.worktrees/loop-1"
        f.root.dir("ws/.worktrees/loop-1/.ralph/agent")
        try FileManager.default.createSymbolicLink(atPath: worktree + "/.ralph/agent/memories.md", withDestinationPath: main)
        let store = MemoryStore(workspace: worktree, root: RootDirectory(path: f.root.path, resolution: resolution))
        #expect(try store.read()?.content == "# Memories\n")
        _ = try store.write("# Memories\n\nfrom the worktree\n")
        #expect(FileSystem.readText(main) == "# Memories\n\nfrom the worktree\n")
        #expect(FileSystem.status(worktree + "/.ralph/agent/memories.md", followSymlinks: false)?.isSymlink == true)
    }
}
