import Foundation
import RalphAPI
import RalphFiles
import Testing

@testable import RalphMobileServer

/// The session list built from what changed since the last one (``SettledSessionList``) is byte for byte the list
/// built from every run (issue 25's warm list).
@Suite("The session list, kept between requests")
struct SettledSessionListTests {
    /// The list as built from every run: sorted newest first, then by id, each session encoded alone.
    static func reference(_ server: RalphMobileServer) throws -> String {
        let now = Date()
        let sessions = server.catalog.snapshots()
            .map { (start: ($0.startDate ?? .distantPast).timeIntervalSince1970, session: $0.session(paused: false, stop: nil, now: now)) }
            .sorted { ($0.start, $0.session.id) > ($1.start, $1.session.id) }
            .map(\.session)
        return String(decoding: try JSONResponse.encoder().encode(sessions), as: UTF8.self)
    }

    static func finished(_ root: String, _ project: String, _ stamp: String, events: Int) -> String {
        let start = Fixture.date("2026-01-0\(stamp.prefix(1))T10:00:00Z")
        var lines = (1...events).map { Fixture.record("build.task", "step \($0)", iteration: $0, hat: "builder", at: start.addingTimeInterval(Double($0))) }
        lines.append(Fixture.terminate("completed", iterations: events, at: start.addingTimeInterval(Double(events + 1))))
        return Fixture.run(in: root + "/" + project, name: "events-2026010\(stamp).jsonl", lines: lines)
    }

    @Test("first, unchanged, appended, added, removed and undated runs: always the full build's bytes")
    func sameAsFullBuild() async throws {
        let files = Locked<[String]>([])
        try await RouterHarness.test(before: { tmp in
            let root = tmp.subdirectory("root")
            var written: [String] = []
            for (index, project) in ["a", "b", "c"].enumerated() {
                for run in 1...4 { written.append(Self.finished(root, project, "\(run)-10000\(index)", events: run + index)) }
            }
            // Two runs started in the same second in two projects: ordered by id.
            written.append(Self.finished(root, "a", "5-120000", events: 2))
            written.append(Self.finished(root, "b", "5-120000", events: 3))
            files.withLock { $0 = written }
        }) { client, server in
            @Sendable func listed() async throws -> String {
                let response = try await client.send(.get, "/api/sessions")
                #expect(response.status == .ok)
                return response.text
            }
            @Sendable func matches(_ what: String, _ check: @escaping @Sendable (String) -> Bool = { _ in true }) async throws {
                try await eventually(10, what) {
                    let body = try await listed()
                    return try body == Self.reference(server) && check(body)
                }
            }
            let first = try await listed()
            #expect(try first == Self.reference(server))
            #expect(try JSONDecoder().decode([Session].self, from: Data(first.utf8)).count == 14)
            #expect(try await listed() == first, "an unchanged workspace lists the same bytes")

            // A finished run gains a line; a run is added; one is removed; one with no date in its name appears.
            let root = files.value[0].components(separatedBy: "/a/.ralph/")[0]
            Fixture.append(Fixture.emit("late.note", "after the end"), to: files.value[3])
            try await matches("the appended line counted") { $0 != first }
            let added = Self.finished(root, "c", "6-080000", events: 7)
            try await matches("the added run listed") { $0.contains(Fixture.id(added)) }
            try FileManager.default.removeItem(atPath: files.value[5])
            try await matches("the removed run gone") { !$0.contains(Fixture.id(files.value[5])) }
            let undated = Fixture.run(
                in: root + "/b", name: "events-undated.jsonl", lines: [Fixture.record("build.task", "x", iteration: 1, hat: "builder")])
            try await matches("the undated run listed") { $0.contains(Fixture.id(undated)) }
            let count = try JSONDecoder().decode([Session].self, from: Data(try await listed().utf8)).count
            #expect(count == 15)
        }
    }
}
