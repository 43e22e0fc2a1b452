import Foundation
import RalphAPI
import RalphFiles
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A thread that keeps swapping directories for symbolic links with rename(2), and back: for each pair, the real
/// directory is renamed aside and a prepared link renamed into its place, then the other way round. A write that lands
/// in the short gap between two renames may create a stray directory under the name; it is removed so the swaps go on.
final class DirectorySwapper: Sendable {
    struct Pair: Sendable {
        /// The directory requests go through.
        let directory: String
        /// A prepared symbolic link (to a directory outside the root) parked next to it.
        let link: String
    }

    let pairs: [Pair]
    private let stopping = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let swaps = Atomic<Int>(0)

    init(_ pairs: [Pair]) {
        self.pairs = pairs
    }

    /// Link states entered so far.
    var swapCount: Int { swaps.load(ordering: .relaxed) }

    func start() {
        Thread.detachNewThread { [self] in
            while !stopping.load(ordering: .relaxed) {
                for pair in pairs {
                    rename(pair.directory, pair.directory + ".real")
                    Self.move(pair.link, over: pair.directory)
                    swaps.add(1, ordering: .relaxed)
                    usleep(200)
                    rename(pair.directory, pair.link)
                    Self.move(pair.directory + ".real", over: pair.directory)
                    usleep(200)
                }
            }
            finished.store(true, ordering: .releasing)
        }
    }

    /// rename(2), removing a stray directory a request created at `target` in the meantime.
    static func move(_ source: String, over target: String) {
        while rename(source, target) != 0 {
            guard errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST || errno == ENOTDIR else { return }
            try? FileManager.default.removeItem(atPath: target)
        }
    }

    /// Stops the thread and waits until every directory is back in place.
    func stop() async throws {
        stopping.store(true, ordering: .relaxed)
        while !finished.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
    }
}

@Suite("Path races: directories swapped for links while the server answers")
struct PathRaceTests {
    @Test("thousands of prompt, config and memories requests while directories flip to links out of the root: no outside byte served or written")
    func swapRace() async throws {
        let l = try await LibraryHarness.start()
        defer { l.h.stop() }
        let outside = l.h.tmp.subdirectory("outside")
        let marker = "SECRET-\(UUID().uuidString)"
        Fixture.write("inside prompt\n", to: l.ws + "/prompts/race/p.md")
        Fixture.write("inside: true\n", to: l.ws + "/presets/race/c.yml")
        Fixture.write("\(marker)\n", to: outside + "/prompts-race/p.md")
        Fixture.write("outside: \(marker)\n", to: outside + "/presets-race/c.yml")
        Fixture.write("# Memories\n\n## Patterns\n\n### mem-1737372000-a1b2\n> \(marker)\n", to: outside + "/agent/memories.md")
        // An absolute link, a relative one, and one for a fixed name's directory.
        try FileManager.default.createSymbolicLink(atPath: l.ws + "/prompts/.race-link", withDestinationPath: outside + "/prompts-race")
        try FileManager.default.createSymbolicLink(atPath: l.ws + "/presets/.race-link", withDestinationPath: "../../outside/presets-race")
        try FileManager.default.createSymbolicLink(atPath: l.ws + "/.ralph/.agent-link", withDestinationPath: outside + "/agent")
        #expect(FileSystem.realPath(l.ws + "/presets/.race-link") == outside + "/presets-race")
        let before = treeSnapshot(of: outside)

        let swapper = DirectorySwapper([
            .init(directory: l.ws + "/prompts/race", link: l.ws + "/prompts/.race-link"),
            .init(directory: l.ws + "/presets/race", link: l.ws + "/presets/.race-link"),
            .init(directory: l.ws + "/.ralph/agent", link: l.ws + "/.ralph/.agent-link"),
        ])
        let base = l.base
        let requests: [(method: HTTPMethodName?, path: String)] = [
            (nil, "/prompts/prompts/race/p.md"), (nil, "/configs/presets/race/c.yml"), (nil, "/memories"), (nil, "/prompts/prompts/race/p.md"),
            (nil, "/configs/presets/race/c.yml"), (nil, "/memories"), (nil, "/prompts"), (.put, "/memories"), (nil, "/presets"),
            (nil, "/hats"),
        ]
        let workers = 4
        let perWorker = 800
        swapper.start()
        let results = try await withThrowingTaskGroup(of: [(Int, Bool)].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var answers: [(Int, Bool)] = []
                    for i in 0..<perWorker {
                        let (method, path) = requests[(i + worker) % requests.count]
                        let result: HTTPResult
                        if let method {
                            result = try await HTTP.request(base + path, method: method.nio, body: ##"{"content":"# Memories\n\nwritten during the race\n"}"##)
                        } else {
                            result = try await HTTP.get(base + path)
                        }
                        answers.append((result.status, result.text.contains(marker)))
                    }
                    return answers
                }
            }
            var all: [(Int, Bool)] = []
            for try await answers in group { all += answers }
            return all
        }
        try await swapper.stop()

        let byStatus = Dictionary(grouping: results, by: { $0.0 }).mapValues { $0.count }
        let leaked = results.filter { $0.1 }.count
        print("path race: \(results.count) requests, \(swapper.swapCount) swaps to a link, statuses \(byStatus.sorted { $0.key < $1.key }), outside content served \(leaked) times")
        #expect(results.count == workers * perWorker)
        #expect(leaked == 0, "served outside content \(leaked) times")
        #expect(treeSnapshot(of: outside) == before, "nothing outside was written, appended or locked")
        // The race really happened: some requests met a link and were refused, others read the real directory.
        #expect(swapper.swapCount > 100)
        #expect((byStatus[400] ?? 0) > 0 && (byStatus[200] ?? 0) > 0)
        // 404: a request in the gap between two renames; 500: a write whose directory the swapper removed under it (a
        // stray one a write created in that gap). Neither serves nor writes anything outside.
        #expect(Set(byStatus.keys).isSubset(of: [200, 400, 404, 500]), "\(byStatus)")
    }
}
