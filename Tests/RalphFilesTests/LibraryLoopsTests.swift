import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

/// The pid of a process that has exited and been reaped.
private func libraryDeadPID() throws -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    return Int(process.processIdentifier)
}

@Suite("Library: loops.json and merge-queue.jsonl")
struct LibraryLoopsTests {
    // MARK: - Loop registry

    static func registry(live: Int, dead: Int) -> String {
        // Pretty-printed, as ralph writes it.
        """
        {
          "loops": [
            {
              "id": "primary-20260205-083922",
              "pid": \(live),
              "started": "2026-02-05T08:39:22.067718291Z",
              "prompt": "Build the greeter",
              "workspace": "/repo"
            },
            {
              "id": "loop-1769046733-a3f2",
              "pid": \(dead),
              "started": "2026-02-05T08:40:00.000000001Z",
              "prompt": "Fix the tests",
              "worktree_path": "/repo/.worktrees/loop-1769046733-a3f2",
              "workspace": "/repo"
            },
            {
              "id": "fancy-name",
              "pid": \(live),
              "started": "2026-02-05T08:41:00Z",
              "prompt": "Write docs",
              "worktree_path": "/repo/.worktrees/fancy-name",
              "workspace": "/repo",
              "some_future_field": [1, 2]
            },
            {"id": "no-pid", "started": "x", "prompt": "y", "workspace": "/repo"},
            "not an entry"
          ]
        }
        """
    }

    @Test("allEntries lists every well-formed entry; liveEntries keeps those whose process is alive")
    func liveAndDead() throws {
        let tmp = TempDir()
        let live = Int(getpid())
        let dead = try libraryDeadPID()
        #expect(!LivenessProbe.isProcessAlive(dead))
        tmp.file(".ralph/loops.json", Self.registry(live: live, dead: dead))
        let registry = LoopRegistry(workspace: tmp.path, root: RootDirectory(path: tmp.path))
        #expect(registry.path == tmp.path + "/.ralph/loops.json")

        let all = try registry.allEntries()
        #expect(all == [
            LoopRegistry.Entry(
                id: "primary-20260205-083922", pid: live, started: "2026-02-05T08:39:22.067718291Z", prompt: "Build the greeter", worktreePath: nil,
                workspace: "/repo"
            ),
            LoopRegistry.Entry(
                id: "loop-1769046733-a3f2", pid: dead, started: "2026-02-05T08:40:00.000000001Z", prompt: "Fix the tests",
                worktreePath: "/repo/.worktrees/loop-1769046733-a3f2", workspace: "/repo"
            ),
            LoopRegistry.Entry(
                id: "fancy-name", pid: live, started: "2026-02-05T08:41:00Z", prompt: "Write docs", worktreePath: "/repo/.worktrees/fancy-name",
                workspace: "/repo"
            ),
        ])

        // fancy-name's pid lives but its worktree (/repo/.worktrees/fancy-name) does not exist: a zombie, not alive.
        #expect(try registry.liveEntries().map(\.id) == ["primary-20260205-083922"])
        #expect(try registry.liveEntries(isAlive: { $0 == dead }).map(\.id) == [])
    }

    @Test("ralph 2.10: a worktree loop is alive only while its pid lives and its worktree directory exists")
    func worktreeMustExist() throws {
        let tmp = TempDir()
        let worktree = tmp.dir(".worktrees/fancy-name")
        let live = Int(getpid())
        tmp.file(".ralph/loops.json", """
            {"loops":[{"id":"fancy-name","pid":\(live),"started":"x","prompt":"p","worktree_path":"\(worktree)","workspace":"\(tmp.path)"},
            {"id":"relative","pid":\(live),"started":"x","prompt":"p","worktree_path":".worktrees/fancy-name","workspace":"\(tmp.path)"}]}
            """)
        let registry = LoopRegistry(workspace: tmp.path, root: RootDirectory(path: tmp.path))
        #expect(try registry.liveEntries().map(\.id) == ["fancy-name", "relative"])
        #expect(LivenessProbe.worktreeLoopPID(workspace: worktree) == live)
        try FileManager.default.removeItem(atPath: worktree)
        #expect(try registry.liveEntries().map(\.id) == [])
        #expect(LivenessProbe.worktreeLoopPID(workspace: worktree) == nil, "no live loop for a vanished worktree")
        #expect(try registry.allEntries().count == 2, "still registered: pruning goes by the pid")
    }

    @Test("info is primary without a worktree path and worktree with one")
    func info() throws {
        let tmp = TempDir()
        tmp.file(".ralph/loops.json", Self.registry(live: Int(getpid()), dead: try libraryDeadPID()))
        let entries = try LoopRegistry(workspace: tmp.path, root: RootDirectory(path: tmp.path)).allEntries()
        #expect(entries[0].info == LoopInfo(
            id: "primary-20260205-083922", status: "primary", prompt: "Build the greeter", pid: Int(getpid()), startedAt: "2026-02-05T08:39:22.067718291Z",
            worktreePath: nil, workspace: "/repo"
        ))
        #expect(entries[1].info.status == "worktree")
        #expect(entries[1].info.worktreePath == "/repo/.worktrees/loop-1769046733-a3f2")
        #expect(entries[2].info.status == "worktree")
    }

    @Test("reading never writes: dead entries stay in the file and a missing loops.json is not created")
    func readingNeverWrites() throws {
        let tmp = TempDir()
        tmp.dir(".ralph")
        let registry = LoopRegistry(workspace: tmp.path, root: RootDirectory(path: tmp.path))
        #expect(try registry.allEntries().isEmpty)
        #expect(try registry.liveEntries().isEmpty)
        #expect(FileSystem.status(registry.path) == nil)
        #expect(FileSystem.list(tmp.path + "/.ralph") == [])

        let text = Self.registry(live: Int(getpid()), dead: try libraryDeadPID())
        tmp.file(".ralph/loops.json", text)
        let before = try #require(FileSystem.status(registry.path))
        _ = try registry.liveEntries()
        _ = try registry.allEntries()
        #expect(FileSystem.readText(registry.path) == text)
        #expect(FileSystem.status(registry.path)?.inode == before.inode)
        #expect(FileSystem.status(registry.path)?.modified == before.modified)
        #expect(Set(FileSystem.list(tmp.path + "/.ralph") ?? []) == ["loops.json"])
    }

    @Test("a workspace without .ralph has no loops and gets no .ralph")
    func noRalphDirectory() throws {
        let tmp = TempDir()
        #expect(try LoopRegistry(workspace: tmp.path, root: RootDirectory(path: tmp.path)).allEntries().isEmpty)
        #expect(FileSystem.status(tmp.path + "/.ralph") == nil)
    }

    @Test("an empty or blank loops.json has no loops; an empty list has none either")
    func emptyRegistry() throws {
        let tmp = TempDir()
        let registry = LoopRegistry(workspace: tmp.path, root: RootDirectory(path: tmp.path))
        for text in ["", "\n", "  \n\t\n", #"{"loops":[]}"#] {
            tmp.file(".ralph/loops.json", text)
            #expect(try registry.allEntries().isEmpty, "\(text.debugDescription)")
        }
    }

    @Test("a loops.json that is not a registry is an error", arguments: [
        "{not json", #"{"loops": {}}"#, #"{"loops": "x"}"#, "[]", #"{"other": []}"#, #"{"loops":[{"id":"a","pid":1}]"#,
    ])
    func brokenRegistry(text: String) {
        let tmp = TempDir()
        tmp.file(".ralph/loops.json", text)
        #expect(throws: (any Error).self) { try LoopRegistry(workspace: tmp.path, root: RootDirectory(path: tmp.path)).allEntries() }
    }

    // MARK: - Merge queue

    static let queue = [
        #"{"ts":"2026-02-05T09:00:00Z","loop_id":"loop-a","event":{"type":"queued","prompt":"Add A"}}"#,
        #"{"ts":"2026-02-05T09:01:00Z","loop_id":"loop-b","event":{"type":"queued","prompt":"Add B"}}"#,
        #"{"ts":"2026-02-05T09:02:00Z","loop_id":"loop-c","event":{"type":"queued","prompt":"Add C"}}"#,
        #"{"ts":"2026-02-05T09:03:00Z","loop_id":"loop-d","event":{"type":"queued","prompt":"Add D"}}"#,
        #"{"ts":"2026-02-05T09:04:00Z","loop_id":"loop-e","event":{"type":"queued","prompt":"Add E"}}"#,
        #"{"ts":"2026-02-05T09:04:30Z","loop_id":"loop-f","event":{"type":"queued","prompt":"Add F"}}"#,
        #"{"ts":"2026-02-05T09:05:00Z","loop_id":"loop-a","event":{"type":"merging","pid":4242}}"#,
        #"{"ts":"2026-02-05T09:06:00Z","loop_id":"loop-a","event":{"type":"merged","commit":"abc1234def"}}"#,
        #"{"ts":"2026-02-05T09:07:00Z","loop_id":"loop-b","event":{"type":"needs_review","reason":"conflict in src/main.rs"}}"#,
        "this line is not JSON",
        #"{"ts":"2026-02-05T09:07:30Z","loop_id":"loop-e","event":{"type":"something_new","x":1}}"#,
        #"{"ts":"2026-02-05T09:07:40Z","event":{"type":"merged","commit":"no loop id"}}"#,
        #"{"ts":"2026-02-05T09:08:00Z","loop_id":"loop-c","event":{"type":"discarded","reason":null}}"#,
        #"{"ts":"2026-02-05T09:09:00Z","loop_id":"loop-d","event":{"type":"merging","pid":4343}}"#,
        #"{"ts":"2026-02-05T09:10:00Z","loop_id":"loop-f","event":{"type":"discarded","reason":"superseded by loop-e"}}"#,
    ]

    @Test("items folds each loop's events into its current state: pending newest queued first, completed and failed latest event first; bad lines skipped")
    func mergeQueueFold() throws {
        let tmp = TempDir()
        tmp.file(".ralph/merge-queue.jsonl", Self.queue.joined(separator: "\n") + "\n")
        let queue = MergeQueue(workspace: tmp.path, root: RootDirectory(path: tmp.path))
        #expect(queue.path == tmp.path + "/.ralph/merge-queue.jsonl")
        let (pending, completed) = try queue.items(worktreePaths: ["loop-a": "/repo/.worktrees/loop-a", "loop-e": "/repo/.worktrees/loop-e"])

        #expect(pending == [
            MergeQueueItem(
                id: "loop-e", status: "pending", state: "queued", prompt: "Add E", worktreePath: "/repo/.worktrees/loop-e", queuedAt: "2026-02-05T09:04:00Z",
                mergedAt: nil, updatedAt: "2026-02-05T09:04:00Z", commit: nil, reason: nil
            ),
            MergeQueueItem(
                id: "loop-d", status: "pending", state: "merging", prompt: "Add D", worktreePath: nil, queuedAt: "2026-02-05T09:03:00Z", mergedAt: nil,
                updatedAt: "2026-02-05T09:09:00Z", commit: nil, reason: nil
            ),
        ])
        #expect(completed == [
            MergeQueueItem(
                id: "loop-f", status: "completed", state: "discarded", prompt: "Add F", worktreePath: nil, queuedAt: "2026-02-05T09:04:30Z",
                mergedAt: nil, updatedAt: "2026-02-05T09:10:00Z", commit: nil, reason: "superseded by loop-e"
            ),
            MergeQueueItem(
                id: "loop-c", status: "completed", state: "discarded", prompt: "Add C", worktreePath: nil, queuedAt: "2026-02-05T09:02:00Z",
                mergedAt: nil, updatedAt: "2026-02-05T09:08:00Z", commit: nil, reason: nil
            ),
            MergeQueueItem(
                id: "loop-b", status: "failed", state: "needs_review", prompt: "Add B", worktreePath: nil, queuedAt: "2026-02-05T09:01:00Z", mergedAt: nil,
                updatedAt: "2026-02-05T09:07:00Z", commit: nil, reason: "conflict in src/main.rs"
            ),
            MergeQueueItem(
                id: "loop-a", status: "completed", state: "merged", prompt: "Add A", worktreePath: "/repo/.worktrees/loop-a", queuedAt: "2026-02-05T09:00:00Z",
                mergedAt: "2026-02-05T09:06:00Z", updatedAt: "2026-02-05T09:06:00Z", commit: "abc1234def", reason: nil
            ),
        ])
    }

    @Test("a loop that is queued again after review is pending again")
    func requeued() {
        let text = [
            #"{"ts":"2026-02-05T09:00:00Z","loop_id":"loop-a","event":{"type":"queued","prompt":"first"}}"#,
            #"{"ts":"2026-02-05T09:01:00Z","loop_id":"loop-a","event":{"type":"needs_review","reason":"conflict"}}"#,
            #"{"ts":"2026-02-05T09:02:00Z","loop_id":"loop-a","event":{"type":"queued","prompt":"second"}}"#,
        ].joined(separator: "\n")
        let (pending, completed) = MergeQueue.fold(text, worktreePaths: [:])
        #expect(completed.isEmpty)
        #expect(pending.map(\.id) == ["loop-a"])
        #expect(pending.first?.state == "queued")
        #expect(pending.first?.prompt == "second")
        #expect(pending.first?.queuedAt == "2026-02-05T09:02:00Z")
    }

    @Test("a missing merge queue is empty and is not created; an empty one is empty")
    func missingQueue() throws {
        let tmp = TempDir()
        let queue = MergeQueue(workspace: tmp.path, root: RootDirectory(path: tmp.path))
        let missing = try queue.items()
        #expect(missing.pending.isEmpty && missing.completed.isEmpty)
        #expect(FileSystem.status(tmp.path + "/.ralph") == nil)

        tmp.file(".ralph/merge-queue.jsonl", "")
        let empty = try queue.items()
        #expect(empty.pending.isEmpty && empty.completed.isEmpty)
    }

    @Test(
        "a CRLF merge queue is read line by line"
    )
    func crlfQueue() {
        let (pending, completed) = MergeQueue.fold(Self.queue.joined(separator: "\r\n") + "\r\n", worktreePaths: [:])
        #expect(pending.map(\.id) == ["loop-e", "loop-d"])
        #expect(completed.map(\.id) == ["loop-f", "loop-c", "loop-b", "loop-a"])
    }
}
