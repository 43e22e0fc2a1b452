import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

@Suite("Library: tasks.jsonl shared with another process")
struct LibraryTaskConcurrencyTests {
    @Test("the store and another process doing read-modify-write under flock on tasks.jsonl.lock lose no update")
    func concurrentWithFlockProcess() throws {
        let w = libraryTaskWorkspace()
        let store = w.store
        let agent = w.tmp.dir(".ralph/agent")
        let count = 50

        let storeDone = DispatchSemaphore(value: 0)
        let storeErrors = LibraryTaskErrorBox()
        Thread.detachNewThread {
            for i in 0..<count {
                do {
                    _ = try store.addTask("store \(i)")
                } catch {
                    storeErrors.append("\(error)")
                }
            }
            storeDone.signal()
        }

        var processFailures: [String] = []
        for i in 0..<count {
            let id = String(format: "task-1700000000-%04x", i)
            let line = #"{"id":"\#(id)","title":"process \#(i)","status":"open","priority":2,"blocked_by":[],"created":"2023-11-14T22:13:20.000000+00:00"}"#
            let script = "touch tasks.jsonl && cat tasks.jsonl > t.tmp.\(i) && echo '\(line)' >> t.tmp.\(i) && mv t.tmp.\(i) tasks.jsonl"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
            process.arguments = [store.lockPath, "sh", "-c", script]
            process.currentDirectoryURL = URL(fileURLWithPath: agent)
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { processFailures.append("\(i): exit \(process.terminationStatus)") }
        }

        #expect(storeDone.wait(timeout: .now() + 60) == .success)
        #expect(processFailures.isEmpty)
        #expect(storeErrors.all.isEmpty)

        let tasks = try store.load()
        #expect(tasks.count == 2 * count)
        #expect(Set(tasks.map(\.id)).count == 2 * count)
        #expect(Set(tasks.map(\.title)) == Set((0..<count).map { "store \($0)" } + (0..<count).map { "process \($0)" }))
        // Nothing left behind by either writer.
        let leftovers = (FileSystem.list(agent) ?? []).filter { $0 != "tasks.jsonl" && $0 != "tasks.jsonl.lock" }
        #expect(leftovers.isEmpty, "\(leftovers)")
        withExtendedLifetime(w) {}
    }
}

private final class LibraryTaskErrorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []

    func append(_ error: String) {
        lock.lock()
        errors.append(error)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return errors
    }
}
