import Foundation
import HTTPTypes
import HummingbirdTesting
import RalphAPI
import Testing

@testable import RalphMobileServer

/// `GET /metrics` on a real server: a known workload moves each metric by exactly what was done, and only an admin or
/// the metrics key may read it (the metrics key reads nothing else).
@Suite("Metrics and request ids")
struct MetricsTests {
    // MARK: - Workloads

    @Test("requests are counted by route pattern, method and status, and timed; /metrics is the exposition format")
    func httpRequests() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let before = try await Scrape.take(h.server.base)
        for _ in 0..<3 { #expect(try await HTTP.get(h.server.base + "/api/sessions").status == 200) }
        for id in ["nothing-a", "nothing-b"] { #expect(try await HTTP.get(h.server.base + "/api/sessions/\(id)/status").status == 404) }
        #expect(try await HTTP.get(h.server.base + "/no/such/route").status == 404)
        let after = try await Scrape.take(h.server.base)

        let requests = "ralph_mobile_http_requests_total"
        #expect(after.delta(before, requests, ["route": "/api/sessions", "method": "GET", "status": "200"]) == 3)
        #expect(after.delta(before, requests, ["route": "/api/sessions/{id}/status", "method": "GET", "status": "404"]) == 2)
        #expect(after.delta(before, requests, ["route": "NotFound", "method": "GET", "status": "404"]) == 1)
        // The first scrape is counted once it was answered; the second is not counted in itself.
        #expect(after.delta(before, requests, ["route": "/metrics", "method": "GET", "status": "200"]) == 1)
        #expect(after.delta(before, "ralph_mobile_http_request_duration_seconds_count", ["route": "/api/sessions", "method": "GET"]) == 3)
        #expect(after.types["ralph_mobile_http_requests_total"] == "counter")
        #expect(after.types["ralph_mobile_http_request_duration_seconds"] == "histogram")
        #expect(after.types["ralph_mobile_process_resident_memory_bytes"] == "gauge")
        #expect((after.value("ralph_mobile_process_resident_memory_bytes", [:]) ?? 0) > Double(1 << 20), "a server uses more than a megabyte")
        #expect((after.value("ralph_mobile_process_open_fds", [:]) ?? 0) > 3)
        #expect(after.value("ralph_mobile_chat_approvals_pending", [:]) == 0)
        #expect(after.contentType.hasPrefix("text/plain; version=0.0.4"))
    }

    @Test("streams: open connections, live and replayed frames, resumes and their depth, folded lines, runs by mode")
    func streams() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let run = try await h.liveRun(appending: 5)
        let base = h.server.base
        // A stream that has read the run's five lines (so they are folded) before the first scrape.
        let client = try await h.stream(run.id)
        #expect(try await client.workflow(count: 5).map(\.line) == [1, 2, 3, 4, 5])
        // Its five frames came from the file, or the last of them live if the catalog announced them after it subscribed.
        let before = try await Scrape.until(base, "the first five frames to be counted") {
            $0.value("ralph_mobile_sse_connections_open", [:]) == 1
                && ($0.value("ralph_mobile_sse_frames_delivered_total", ["source": "log"]) ?? 0)
                    + ($0.value("ralph_mobile_sse_frames_delivered_total", ["source": "live"]) ?? 0) == 5
        }
        #expect(before.value("ralph_mobile_runs", ["mode": "live"]) == 1)
        #expect(before.value("ralph_mobile_runs", ["mode": "complete"]) == 0)

        // Four lines appended live.
        run.append(4, from: 6)
        #expect(try await client.workflow(count: 4).map(\.line) == [6, 7, 8, 9])
        // A second client resumes after line 6: three lines behind the head.
        let resumed = try await h.resume(run.id, after: "6")
        #expect(try await resumed.workflow(count: 3).map(\.line) == [7, 8, 9])
        // A line that is not an event is folded (and counted as malformed), and sent to no one.
        Fixture.append("this is not json", to: run.file)

        let frames = "ralph_mobile_sse_frames_delivered_total"
        let during = try await Scrape.until(base, "the stream metrics to settle") { now in
            now.delta(before, frames, ["source": "live"]) == 4 && now.delta(before, frames, ["source": "log"]) == 3
                && now.delta(before, "ralph_mobile_catalog_folded_lines_total", [:]) == 5
        }
        #expect(during.value("ralph_mobile_sse_connections_open", [:]) == 2)
        #expect(during.delta(before, "ralph_mobile_sse_resumes_total", ["route": "/api/sessions/{id}/events"]) == 1)
        #expect(during.delta(before, "ralph_mobile_sse_resume_depth_events_count", ["route": "/api/sessions/{id}/events"]) == 1)
        #expect(during.delta(before, "ralph_mobile_sse_resume_depth_events_sum", ["route": "/api/sessions/{id}/events"]) == 3)
        #expect(during.delta(before, "ralph_mobile_catalog_malformed_lines_total", [:]) == 1)
        #expect(during.delta(before, "ralph_mobile_catalog_fold_duration_seconds_count", [:]) >= 1)
        #expect(during.delta(before, "ralph_mobile_sse_subscribers_cut_total", ["reason": "stalled"]) == 0)
        #expect(during.value("ralph_mobile_runs", ["mode": "live"]) == 1)

        client.cancel()
        resumed.cancel()
        _ = try await Scrape.until(base, "the streams to close") { $0.value("ralph_mobile_sse_connections_open", [:]) == 0 }
    }

    @Test("every response carries a request id: a sane X-Request-Id is kept, anything else replaced by a new one")
    func requestIDs() async throws {
        let h = try await StreamHarness.start()
        defer { h.stop() }
        let url = h.server.base + "/api/health"
        let generated = try #require(try await HTTP.get(url).headers["X-Request-Id"].first)
        #expect(generated.count == 32 && generated.allSatisfy(\.isHexDigit))
        let other = try #require(try await HTTP.get(url).headers["X-Request-Id"].first)
        #expect(other != generated)
        #expect(try await HTTP.get(url, headers: [("X-Request-Id", "trace-7.a:b_C")]).headers["X-Request-Id"].first == "trace-7.a:b_C")
        // Errors carry it too.
        let missing = try await HTTP.get(h.server.base + "/nope", headers: [("X-Request-Id", "req-404")])
        #expect(missing.status == 404 && missing.headers["X-Request-Id"].first == "req-404")
        for bad in ["has space", "quote\"d", String(repeating: "a", count: 129), "ünïcode"] {
            let replaced = try #require(try await HTTP.get(url, headers: [("X-Request-Id", bad)]).headers["X-Request-Id"].first)
            #expect(replaced != bad && replaced.count == 32 && replaced.allSatisfy(\.isHexDigit), "\(bad.prefix(20))")
        }
        #expect(RequestIDMiddleware.accepted(String(repeating: "a", count: 128)) != nil)
        #expect(RequestIDMiddleware.accepted("") == nil)
    }

    // MARK: - Access

    static let adminKey = "metrics-tests-admin-key-0123456789abcdef"
    static let metricsKey = "metrics-tests-scrape-key-0123456789abcdef"

    @Test("with keys: none is 401, viewer and operator 403, admin and the metrics key 200 (Bearer or X-Api-Key)")
    func keyedAccess() async throws {
        let secrets = Locked<[Role: String]>([:])
        try await RouterHarness.test({
            $0.apiKey = Self.adminKey
            $0.metricsKey = Self.metricsKey
        }, before: { tmp in
            let store = try KeyStore(path: tmp.path + "/data/keys.json")
            for role in Role.allCases { secrets.withLock { $0[role] = try? store.create(role: role, name: nil).secret } }
        }) { client, _ in
            let keys = secrets.value
            let anonymous = try await client.send(.get, "/metrics")
            #expect(anonymous.status == .unauthorized && anonymous.text == #"{"error":"unauthorized"}"#)
            for role in [Role.viewer, .operator] {
                let refused = try await client.send(.get, "/metrics", headers: [("X-Api-Key", keys[role]!)])
                #expect(refused.status == .forbidden && refused.text == #"{"error":"forbidden: needs admin"}"#, "\(role)")
            }
            for headers in [[("X-Api-Key", keys[.admin]!)], [("X-Api-Key", Self.adminKey)], [("Authorization", "Bearer \(Self.metricsKey)")],
                [("X-Api-Key", Self.metricsKey)]]
            {
                let allowed = try await client.send(.get, "/metrics", headers: headers)
                #expect(allowed.status == .ok, "\(headers[0].0)")
                #expect(allowed.text.contains("# TYPE ralph_mobile_runs gauge"))
            }
            let wrong = try await client.send(.get, "/metrics", headers: [("Authorization", "Bearer \(Self.metricsKey)x")])
            #expect(wrong.status == .unauthorized)
        }
    }

    @Test("the metrics key is refused on every other route")
    func metricsKeyGrantsNothingElse() async throws {
        try await RouterHarness.test({
            $0.apiKey = Self.adminKey
            $0.metricsKey = Self.metricsKey
        }) { client, server in
            var checked = 0
            for (route, access) in RouteAccessTests.expected.sorted(by: { $0.key < $1.key }) where access != "open" && !route.hasSuffix(" /metrics") {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let method = HTTPRequest.Method(parts[0])!
                let path = RouterRoleTests.path(parts[1])
                for headers in [[("Authorization", "Bearer \(Self.metricsKey)")], [("X-Api-Key", Self.metricsKey)]] {
                    // Every wrong key counts against the address: forgotten, so each answer is the key's, not the throttle's.
                    server.authenticator.throttle.clear()
                    let refused = try await client.send(method, path, headers: headers)
                    #expect(refused.status == .unauthorized, "\(route) with the metrics key: \(refused.status)")
                }
                checked += 1
            }
            #expect(checked == RouteAccessTests.expected.values.filter { $0 != "open" }.count - 1, "every keyed route but /metrics was asked")
        }
    }

    @Test("a trusted loopback server serves /metrics without a key; a metrics key that is weak or an API key is refused at start")
    func loopbackAndStartup() async throws {
        try await RouterHarness.test { client, _ in
            let open = try await client.send(.get, "/metrics")
            #expect(open.status == .ok)
            #expect(open.headers[.contentType] == MetricsRoutes.contentType)
        }
        let tmp = TemporaryDirectory()
        for (metricsKey, reason) in [("short", "characters long"), (Self.adminKey, "must not be an API key")] {
            #expect {
                _ = try RouterFixture.server(tmp) {
                    $0.apiKey = Self.adminKey
                    $0.metricsKey = metricsKey
                }
            } throws: { error in
                "\(error)".contains("--metrics-key") && "\(error)".contains(reason)
            }
        }
    }
}

/// One scrape of `/metrics`, parsed: samples by name and labels, and each family's `# TYPE`.
struct Scrape {
    struct Key: Hashable {
        var name: String
        var labels: [String: String]
    }

    var samples: [Key: Double] = [:]
    var types: [String: String] = [:]
    var contentType = ""

    static func take(_ base: String, headers: [(String, String)] = []) async throws -> Scrape {
        let result = try await HTTP.get(base + "/metrics", headers: headers)
        guard result.status == 200 else { throw TestFailure("/metrics answered \(result.status): \(result.text)") }
        var scrape = try parse(result.text)
        scrape.contentType = result.headers["Content-Type"].first ?? ""
        return scrape
    }

    /// Scrapes until `condition` holds (a stream's counters move just after the bytes are written), up to 5 s.
    static func until(_ base: String, _ what: String, _ condition: @escaping @Sendable (Scrape) -> Bool) async throws -> Scrape {
        let last = Locked<Scrape?>(nil)
        try await eventually(5, what) {
            let scrape = try await take(base)
            last.withLock { $0 = scrape }
            return condition(scrape)
        }
        return try #require(last.value)
    }

    /// Parses the text format: `name{label="value",…} number` lines, `# TYPE name type` lines.
    static func parse(_ text: String) throws -> Scrape {
        var scrape = Scrape()
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                if parts.count == 4 { scrape.types[String(parts[2])] = String(parts[3]) }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                throw TestFailure("not a sample line: \(line)")
            }
            let series = line[..<space]
            var key = Key(name: String(series), labels: [:])
            if let brace = series.firstIndex(of: "{") {
                key.name = String(series[..<brace])
                let body = series[series.index(after: brace)..<series.index(before: series.endIndex)]
                // Values here never hold `",` (route patterns, methods, numbers).
                for pair in body.components(separatedBy: "\",") where !pair.isEmpty {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { throw TestFailure("bad labels: \(line)") }
                    key.labels[String(parts[0])] = String(parts[1].drop { $0 == "\"" }.prefix { $0 != "\"" })
                }
            }
            scrape.samples[key] = value
        }
        return scrape
    }

    func value(_ name: String, _ labels: [String: String]) -> Double? { samples[Key(name: name, labels: labels)] }

    /// How much a sample grew since `before` (a series not written yet counts as 0).
    func delta(_ before: Scrape, _ name: String, _ labels: [String: String]) -> Double {
        (value(name, labels) ?? 0) - (before.value(name, labels) ?? 0)
    }
}
