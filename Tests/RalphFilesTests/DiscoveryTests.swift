import Foundation
import RalphFiles
import Testing

@Suite("Run discovery")
struct DiscoveryTests {
    @Test("finds runs in the root, first-level subdirectories, worktrees and legacy .agent; nothing else")
    func findsEveryLayout() {
        let tmp = TempDir()
        let expected = [
            tmp.file(".ralph/events-20260101-000000.jsonl"),
            tmp.file(".ralph/events.jsonl"),
            tmp.file("app/.ralph/events-20260102-000000.jsonl"),
            tmp.file("app/.agent/events.jsonl"),
            tmp.file(".worktrees/feature/.ralph/events-20260103-000000.jsonl"),
            tmp.file("app/.worktrees/fix/.ralph/events-20260104-000000.jsonl"),
        ]
        // Not runs: other names, a second nesting level, hidden directories, a directory with a run-file name,
        // .agent's events-*.jsonl, symlinks that could lead outside the roots.
        tmp.file(".ralph/events-.jsonl")
        tmp.file(".ralph/notes.jsonl")
        tmp.file(".ralph/events-20260101.json")
        tmp.file(".ralph/current-events", ".ralph/events-20260101-000000.jsonl")
        tmp.file("a/b/.ralph/events-20260105-000000.jsonl")
        tmp.file(".hidden/.ralph/events-20260106-000000.jsonl")
        tmp.dir("app/.ralph/events-20260107-000000.jsonl")
        tmp.file("app/.agent/events-20260108-000000.jsonl")
        let outside = TempDir()
        outside.file(".ralph/events-20260109-000000.jsonl")
        try! FileManager.default.createSymbolicLink(atPath: tmp.path + "/linked", withDestinationPath: outside.path)
        try! FileManager.default.createSymbolicLink(
            atPath: tmp.path + "/.ralph/events-20260110-000000.jsonl", withDestinationPath: outside.path + "/.ralph/events-20260109-000000.jsonl"
        )

        let runs = RunDiscovery.discover(roots: [tmp.path])
        #expect(Set(runs.map(\.file)) == Set(expected))
        let app = runs.first { $0.file.hasSuffix("app/.agent/events.jsonl") }!
        #expect(app.layout == .agent && app.workspace == tmp.path + "/app" && app.relativeWorkspace == "app")
        let worktree = runs.first { $0.file.contains("/fix/") }!
        #expect(worktree.relativeWorkspace == "app/.worktrees/fix")
        #expect(worktree.relativeFile == "app/.worktrees/fix/.ralph/events-20260104-000000.jsonl")
        #expect(runs.allSatisfy { $0.id == RunID.make(forPath: $0.file) })
    }

    @Test("a .ralph, .agent, .worktrees or events file that is a symbolic link is never listed, out of the root or inside it")
    func linkedStateDirectoriesNotListed() throws {
        let tmp = TempDir()
        let outside = TempDir()
        outside.file(".ralph/events-20260101-000000.jsonl")
        outside.file(".agent/events.jsonl")
        outside.file("wt/.ralph/events-20260102-000000.jsonl")
        let real = tmp.file("real/.ralph/events-20260103-000000.jsonl")
        tmp.dir("a")
        tmp.dir("b")
        tmp.dir("c")
        tmp.dir("d/.ralph")
        let link = { (path: String, target: String) in try FileManager.default.createSymbolicLink(atPath: tmp.path + "/" + path, withDestinationPath: target) }
        try link("a/.ralph", outside.path + "/.ralph")
        try link("b/.agent", outside.path + "/.agent")
        try link("c/.worktrees", outside.path)
        try link("d/.ralph/events-20260104-000000.jsonl", real)
        try link("e", tmp.path + "/real")
        try link(".worktrees", tmp.path)
        #expect(RunDiscovery.discover(roots: [tmp.path]).map(\.file) == [real])
        #expect(RunDiscovery.stateDirectories(of: tmp.path + "/a").isEmpty)
        #expect(RunDiscovery.stateDirectories(of: tmp.path + "/e").isEmpty)
        #expect(RunDiscovery.runFiles(in: tmp.path + "/e/.ralph", layout: .ralph).isEmpty)
    }

    @Test("a run under two roots is listed once")
    func overlappingRoots() {
        let tmp = TempDir()
        tmp.file("proj/.ralph/events-20260101-000000.jsonl")
        #expect(RunDiscovery.discover(roots: [tmp.path, tmp.path + "/proj"]).count == 1)
    }

    @Test("a root that does not exist or cannot be listed yields nothing, without crashing")
    func missingRoot() {
        #expect(RunDiscovery.discover(roots: ["/nonexistent-\(UUID())"]).isEmpty)
    }
}
