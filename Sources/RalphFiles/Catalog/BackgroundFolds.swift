import CFileSupport
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The full folds of the runs the first discovery listed from a fast scan (``RunFileScan``), made in the background
/// after the catalog is ready, live runs and the newest first, and any run a caller waits for before the rest.
///
/// A few threads at a lower priority (so answering requests comes first) take one run at a time, fold its file through
/// exactly the lines the scan counted, write the fold to the run index, and post it to the catalog's thread, which
/// adopts it (``CatalogEngine/completeFold(_:with:)``) and reads on from there.
final class BackgroundFolds: Sendable {
    /// What to fold: the run file up to where its scan ended.
    struct Job: Sendable {
        var location: RunLocation
        var device: UInt64
        var inode: UInt64
        /// Lines the scan counted (and so the fold must cover).
        var lines: Int
        /// Where the last of them ends.
        var offset: Int
        /// The file's first bytes and the bytes ending at ``offset``, as the scan read them.
        var head: [UInt8]
        var end: [UInt8]

        var id: String { location.id }
    }

    enum Outcome: Sendable {
        /// The fold, and whether the run index holds it now.
        case folded(RunIndexStore.Entry, indexed: Bool)
        /// Not folded: the file changed under the scan (replaced, shortened, rewritten) or could not be read.
        case failed(String)
    }

    struct State {
        /// Next first.
        var queue: [Job] = []
        var held: Bool
        var cancelled = false
        var workers = 0
    }

    private let state: Mutex<State>
    private let gate = DispatchSemaphore(value: 0)
    private let workersDone = DispatchGroup()
    /// Nice value of the folding threads.
    static let niceness: Int32 = 10

    /// `held`: nothing is folded until ``release()`` (tests look at the catalog between its first list and its folds).
    init(held: Bool) {
        state = Mutex(State(held: held))
    }

    /// Queues `jobs` (in order) and starts up to `threads` workers, each running `work` on the jobs it takes.
    func start(_ jobs: [Job], threads: Int, work: @escaping @Sendable (Job) -> Void) {
        let count = state.withLock { s -> Int in
            s.queue += jobs
            let count = max(0, min(threads, s.queue.count) - s.workers)
            s.workers += count
            return count
        }
        for n in 0..<count {
            workersDone.enter()
            let thread = Thread { [self] in
                _ = rm_lower_thread_priority(Self.niceness)
                while let job = next() { work(job) }
                workersDone.leave()
            }
            thread.name = "ralph-mobile.fold-\(n + 1)"
            thread.start()
        }
    }

    /// The next job; nil once there are none or the folds were cancelled. Waits while held.
    private func next() -> Job? {
        while true {
            let (job, held) = state.withLock { s -> (Job?, Bool) in
                if s.cancelled || s.queue.isEmpty {
                    s.workers -= 1
                    return (nil, false)
                }
                if s.held { return (nil, true) }
                return (s.queue.removeFirst(), false)
            }
            if held {
                gate.wait()
                gate.signal()  // every waiting worker passes once released
                continue
            }
            return job
        }
    }

    /// Moves a queued run to the front (a caller waits for it).
    func prioritize(_ id: String) {
        state.withLock { s in
            guard let index = s.queue.firstIndex(where: { $0.id == id }), index > 0 else { return }
            s.queue.insert(s.queue.remove(at: index), at: 0)
        }
    }

    /// Drops a run from the queue (it was folded on the catalog's thread, or it is gone).
    func withdraw(_ id: String) {
        state.withLock { s in s.queue.removeAll { $0.id == id } }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Lets held folds start.
    func release() {
        let wasHeld = state.withLock { s -> Bool in
            defer { s.held = false }
            return s.held
        }
        if wasHeld { gate.signal() }
    }

    /// Stops the folds (a fold under way stops at its next chunk) and returns once every worker has.
    func cancelAndWait() {
        state.withLock { $0.cancelled = true }
        release()
        workersDone.wait()
    }

    /// Folds the job's file through the lines its scan counted, and checks it is still the file scanned.
    static func fold(_ job: Job, maxLineBytes: Int, stop: () -> Bool) -> Outcome {
        let fd = open(job.location.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failed("cannot open the file (errno \(errno))") }
        defer { close(fd) }
        guard let status = FileSystem.status(fd: fd), status.device == job.device, status.inode == job.inode else {
            return .failed("another file has its path")
        }
        let fold: EventFileReader.Fold
        do {
            fold = try EventFileReader.fold(fd: fd, lines: job.lines, maxLineBytes: maxLineBytes, stop: stop)
        } catch {
            return .failed("\(error)")
        }
        guard fold.state.lineCount == job.lines, fold.splitter.lineStart == job.offset else {
            return .failed(stop() ? "stopped" : "its first \(job.lines) lines are not the lines scanned")
        }
        guard CatalogEngine.readHead(fd: fd, count: job.head.count) == job.head,
            CatalogEngine.readBytes(fd: fd, count: job.end.count, endingAt: job.offset) == job.end
        else { return .failed("it was rewritten in place") }
        let entry = RunIndexStore.Entry(
            file: job.location.file, device: job.device, inode: job.inode, offset: job.offset, head: job.head, tail: job.end,
            checkpoints: fold.checkpoints, state: fold.state
        )
        return .folded(entry, indexed: false)
    }
}
