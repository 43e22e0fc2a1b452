import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

/// Every file under `dir` with its content (directories as `<dir>`, links as `-> target`).
func treeSnapshot(of dir: String) -> [String: String] {
    var result: [String: String] = [:]
    let enumerator = FileManager.default.enumerator(atPath: dir)
    while let path = enumerator?.nextObject() as? String {
        let full = dir + "/" + path
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: full) {
            result[path] = "-> " + target
        } else {
            result[path] = (try? String(contentsOfFile: full, encoding: .utf8)) ?? "<dir>"
        }
    }
    return result
}

/// A library server whose workspace's fixed-name files can be turned into links to marked copies outside the root.
struct OutsideCopies {
    let l: LibraryHarness
    let outside: String
    let marker = "SECRET-\(UUID().uuidString)"

    init(_ l: LibraryHarness) {
        self.l = l
        outside = l.h.tmp.subdirectory("outside")
        Fixture.write("# Memories\n\n## Patterns\n\n### mem-1737372000-a1b2\n> \(marker)\n", to: outside + "/.ralph/agent/memories.md")
        Fixture.write(
            #"{"id":"task-1769046733-f668","title":"\#(marker)","status":"open","priority":1,"blocked_by":[],"created":"2026-01-01T00:00:00Z"}"# + "\n",
            to: outside + "/.ralph/agent/tasks.jsonl"
        )
        Fixture.write("\(marker)\n", to: outside + "/.ralph/agent/scratchpad.md")
        Fixture.write(#"{"ts":"2026-01-01T00:00:00Z","loop_id":"loop-1","event":{"type":"queued","prompt":"\#(marker)"}}"# + "\n", to: outside + "/.ralph/merge-queue.jsonl")
        Fixture.write(#"{"loops":[{"id":"loop-1","pid":\#(getpid()),"started":"2026-01-01T00:00:00Z","prompt":"\#(marker)","workspace":"/"}]}"#, to: outside + "/.ralph/loops.json")
    }

    /// Replaces `relative` in the workspace with a link to its outside copy.
    func link(_ relative: String) throws {
        let path = l.ws + "/" + relative
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside + "/" + relative)
    }

    /// Every workspace route on ralph's fixed names, reads and writes.
    static let requests: [(String, String, String?)] = [
        ("GET", "/api/memories", nil), ("PUT", "/api/memories", #"{"content":"overwritten"}"#), ("POST", "/api/memories/export", nil),
        ("GET", "/api/tasks", nil), ("POST", "/api/tasks", #"{"title":"planted"}"#), ("PUT", "/api/tasks/task-1769046733-f668", #"{"status":"closed"}"#),
        ("GET", "/api/loops", nil), ("GET", "/api/loops/loop-1", nil), ("GET", "/api/merge-queue", nil),
    ]

    /// Sends every request; returns what was accepted and whether anything served the marker.
    func attack() throws -> (answers: [String: (Int, String)], leaked: [String]) {
        var answers: [String: (Int, String)] = [:]
        var leaked: [String] = []
        for (method, target, body) in Self.requests {
            let (status, text) = try RawHTTP.request(port: l.h.server.port, method: method, target: target, body: body)
            answers["\(method) \(target)"] = (status, text)
            if text.contains(marker) { leaked.append("\(method) \(target)") }
        }
        return (answers, leaked)
    }
}

@Suite("Symbolic links out of the workspace roots, through the real router")
struct SymlinkConfinementTests {
    @Test("memories.md, tasks.jsonl, loops.json and merge-queue.jsonl linked out: every route answers invalid_path, nothing outside changes")
    func fixedNamesLinkedOut() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let o = OutsideCopies(l)
        for file in [".ralph/agent/memories.md", ".ralph/agent/tasks.jsonl", ".ralph/loops.json", ".ralph/merge-queue.jsonl"] { try o.link(file) }
        let before = treeSnapshot(of: o.outside)
        let (answers, leaked) = try o.attack()
        #expect(leaked.isEmpty, "served outside content: \(leaked)")
        for (request, (status, text)) in answers {
            #expect(status == 400 && text.hasPrefix(#"{"error":"invalid_path: "#), "\(request) → \(status) \(text.prefix(200))")
        }
        #expect(answers["GET /api/memories"]?.1 == #"{"error":"invalid_path: '.ralph/agent/memories.md' is a symbolic link out of the workspace root"}"#)
        #expect(treeSnapshot(of: o.outside) == before, "nothing outside was written or locked")
        #expect(!FileManager.default.fileExists(atPath: o.outside + "/.ralph/agent/memories.md.lock"))
        #expect(!FileManager.default.fileExists(atPath: o.outside + "/.ralph/agent/tasks.jsonl.lock"))
    }

    @Test(".ralph itself, or .ralph/agent, a link to an outside directory: nothing of it is served or written")
    func stateDirectoryLinkedOut() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let o = OutsideCopies(l)
        for directory in [".ralph/agent", ".ralph"] {
            try o.link(directory)
            let before = treeSnapshot(of: o.outside)
            let (answers, leaked) = try o.attack()
            #expect(leaked.isEmpty, "\(directory): served outside content: \(leaked)")
            #expect(treeSnapshot(of: o.outside) == before, "\(directory): nothing outside was written")
            let refused = answers.filter { $0.value.0 == 400 && $0.value.1.contains("is a symbolic link out of the workspace root") }.map(\.key)
            // With only .ralph/agent linked, the registry and the merge queue (in .ralph) are the workspace's own.
            let expected = directory == ".ralph" ? OutsideCopies.requests.count : 6
            #expect(refused.count == expected, "\(directory): \(answers.mapValues { "\($0.0) \($0.1.prefix(120))" })")
        }
    }

    @Test("a run's scratchpad, events file or .ralph linked out: scratchpad, emit and steer refuse, nothing outside changes")
    func runFilesLinkedOut() async throws {
        let h = try await SteeringHarness.start()
        defer { h.stop() }
        h.config("iterations: 500\npace: 0.1")
        let started = try await h.startRun()
        let outside = h.tmp.subdirectory("outside")
        let marker = "SECRET-\(UUID().uuidString)"
        var session = try await h.status(started.id)
        for _ in 0..<100 where session.mode != .live {
            try await Task.sleep(for: .milliseconds(50))
            session = try await h.status(started.id)
        }
        let id = session.id
        let events = h.root + "/" + session.path
        let name = (events as NSString).lastPathComponent
        Fixture.write("\(marker)\n", to: outside + "/agent/scratchpad.md")
        Fixture.write("\(marker)\n", to: outside + "/" + name)
        Fixture.write("\(marker)\n", to: outside + "/.ralph/" + name)
        let stateDirectory = (events as NSString).deletingLastPathComponent

        // The scratchpad: .ralph/agent linked out.
        try? FileManager.default.removeItem(atPath: stateDirectory + "/agent")
        try FileManager.default.createSymbolicLink(atPath: stateDirectory + "/agent", withDestinationPath: outside + "/agent")
        let scratchpad = try await HTTP.get(h.server.base + "/api/sessions/\(id)/scratchpad")
        #expect(scratchpad.status == 400 && scratchpad.text.contains("is a symbolic link out of the workspace root"), "\(scratchpad.text)")
        #expect(!scratchpad.text.contains(marker))

        // The events file linked out, then .ralph itself.
        let before = treeSnapshot(of: outside)
        try FileManager.default.moveItem(atPath: events, toPath: events + ".real")
        try FileManager.default.createSymbolicLink(atPath: events, withDestinationPath: outside + "/" + name)
        let emit = try await h.post("/api/sessions/\(id)/emit", #"{"topic":"planted"}"#)
        let steer = try await h.post("/api/sessions/\(id)/steer", #"{"message":"planted"}"#)
        #expect(emit.status >= 400 && steer.status >= 400, "\(emit.status) \(emit.text) / \(steer.status) \(steer.text)")
        try FileManager.default.removeItem(atPath: events)
        try FileManager.default.moveItem(atPath: events + ".real", toPath: events)
        try FileManager.default.moveItem(atPath: stateDirectory, toPath: stateDirectory + ".real")
        try FileManager.default.createSymbolicLink(atPath: stateDirectory, withDestinationPath: outside + "/.ralph")
        let emitThroughDirectory = try await h.post("/api/sessions/\(id)/emit", #"{"topic":"planted"}"#)
        #expect(emitThroughDirectory.status >= 400, "\(emitThroughDirectory.text)")
        #expect(treeSnapshot(of: outside) == before, "nothing outside was appended to")
        try FileManager.default.removeItem(atPath: stateDirectory)
        try FileManager.default.moveItem(atPath: stateDirectory + ".real", toPath: stateDirectory)
    }
}
