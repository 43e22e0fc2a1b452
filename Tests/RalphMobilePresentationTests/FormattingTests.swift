import Foundation
import RalphAPI
import RalphMobilePresentation
import Testing

@Suite("Formatting: ids, durations, times, counts, costs, payloads")
struct FormattingTests {
    let utc = TimeZone(identifier: "UTC")!
    let now = Timestamp.parse("2026-02-05T09:00:00.000Z")!

    @Test("id8 is the first eight characters; a shorter id stays whole")
    func id8() {
        #expect(Formatting.id8("3fa2c9017b1e4d02") == "3fa2c901")
        #expect(Formatting.id8("abc") == "abc")
    }

    @Test("durations: seconds, minutes and seconds, hours and minutes, days and hours; unknown or negative is —")
    func durations() {
        #expect(Formatting.duration(seconds: 0) == "0s")
        #expect(Formatting.duration(seconds: 59.4) == "59s")
        #expect(Formatting.duration(seconds: 59.6) == "1m 0s")
        #expect(Formatting.duration(seconds: 303) == "5m 3s")
        #expect(Formatting.duration(seconds: 7500) == "2h 5m")
        #expect(Formatting.duration(seconds: 3 * 86_400 + 4 * 3600 + 59) == "3d 4h")
        #expect(Formatting.duration(seconds: nil as Int?) == "—")
        #expect(Formatting.duration(seconds: -1) == "—")
        #expect(Formatting.duration(seconds: .infinity) == "—")
    }

    @Test("relative times: s, m, h, d ago from any RFC 3339 form; a clock slightly ahead reads 0s ago; garbage is —")
    func relativeTimes() {
        #expect(Formatting.relativeTime("2026-02-05T08:59:48Z", now: now) == "12s ago")
        #expect(Formatting.relativeTime("2026-02-05T08:55:30.123456789+00:00", now: now) == "4m ago")
        #expect(Formatting.relativeTime("2026-02-05T08:55:00.4+00:00", now: now) == "5m ago", "whole seconds first (299.6 s is 300 s)")
        #expect(Formatting.relativeTime("2026-02-05T11:00:00+02:00", now: now) == "0s ago", "09:00 UTC")
        #expect(Formatting.relativeTime("2026-02-05T06:00:00Z", now: now) == "3h ago")
        #expect(Formatting.relativeTime("2026-02-03T09:00:00Z", now: now) == "2d ago")
        #expect(Formatting.relativeTime("2026-02-05T09:00:03Z", now: now) == "0s ago")
        #expect(Formatting.relativeTime("yesterday", now: now) == "—")
        #expect(Formatting.relativeTime(nil as String?, now: now) == "—")
    }

    @Test("time until a deadline: in …, or now once passed")
    func until() {
        #expect(Formatting.timeUntil("2026-02-05T09:04:48Z", now: now) == "in 4m 48s")
        #expect(Formatting.timeUntil("2026-02-05T08:59:00Z", now: now) == "now")
        #expect(Formatting.timeUntil(nil, now: now) == "—")
    }

    @Test("clock and date times in the given time zone; the year only when it is not this year")
    func clockAndDate() {
        #expect(Formatting.clockTime("2026-02-05T08:09:13.890Z", timeZone: utc) == "08:09:13")
        #expect(Formatting.clockTime("2026-02-05T08:09:13.890Z", timeZone: TimeZone(identifier: "Europe/Paris")!) == "09:09:13")
        #expect(Formatting.dateTime("2026-02-05T08:09:13Z", now: now, timeZone: utc) == "Feb 5, 08:09")
        #expect(Formatting.dateTime("2025-12-31T23:59:00Z", now: now, timeZone: utc) == "Dec 31 2025, 23:59")
        #expect(Formatting.fileStamp(now) == "20260205T090000Z")
    }

    @Test("numbers get thousands separators; token counts are short (k, M, B, a trailing .0 dropped); costs in dollars")
    func counts() {
        #expect(Formatting.number(0) == "0")
        #expect(Formatting.number(999) == "999")
        #expect(Formatting.number(1234) == "1,234")
        #expect(Formatting.number(-1_234_567) == "-1,234,567")
        #expect(Formatting.tokens(950) == "950")
        #expect(Formatting.tokens(1000) == "1k")
        #expect(Formatting.tokens(1234) == "1.2k")
        #expect(Formatting.tokens(12_345) == "12k")
        #expect(Formatting.tokens(999_999) == "1M")
        #expect(Formatting.tokens(3_400_000) == "3.4M")
        #expect(Formatting.tokens(2_000_000_000) == "2B")
        #expect(Formatting.tokens(nil) == "—")
        #expect(Formatting.cost(0.05) == "$0.05")
        #expect(Formatting.cost(12.3) == "$12.30")
        #expect(Formatting.cost(0.0042) == "$0.0042")
        #expect(Formatting.cost(0) == "$0.00")
        #expect(Formatting.cost(nil) == "—")
        #expect(Formatting.iteration(3, of: 10) == "3 / 10")
        #expect(Formatting.iteration(3, of: nil) == "3")
        #expect(Formatting.count(1, "event") == "1 event")
        #expect(Formatting.count(1200, "event") == "1,200 events")
    }

    @Test("one line: whitespace runs become one space, long text is cut with …")
    func oneLine() {
        #expect(Formatting.oneLine("a\n\n  b\tc") == "a b c")
        #expect(Formatting.oneLine(String(repeating: "x", count: 100), max: 10) == "xxxxxxxxx…")
        #expect(Formatting.oneLine("short", max: 10) == "short")
    }

    @Test("payloads: JSON indented with its keys in order (payload_json, or a string holding JSON); text as it is")
    func payloads() throws {
        let objectEvent = try #require(
            WorkflowEvent(data: #"{"id":"3","topic":"agent.usage","payload":"{\"b\":1,\"a\":[true,null]}","payload_json":{"b":1,"a":[true,null]}}"#))
        #expect(Formatting.payloadText(objectEvent) == "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    null\n  ]\n}")
        let stringJSON = try #require(WorkflowEvent(data: #"{"id":"4","topic":"x","payload":" {\"k\": \"v\"} "}"#))
        #expect(Formatting.payloadText(stringJSON) == "{\n  \"k\": \"v\"\n}")
        let text = try #require(WorkflowEvent(data: #"{"id":"5","topic":"x","payload":"tests: pass\n{not json"}"#))
        #expect(Formatting.payloadText(text) == "tests: pass\n{not json")
        let brokenJSON = try #require(WorkflowEvent(data: #"{"id":"6","topic":"x","payload":"{oops"}"#))
        #expect(Formatting.payloadText(brokenJSON) == "{oops")
        let none = try #require(WorkflowEvent(data: #"{"id":"7","topic":"x"}"#))
        #expect(Formatting.payloadText(none) == "")
        #expect(Formatting.prettyJSON(.object(JSONObject())) == "{}")
        #expect(Formatting.prettyJSON(.array([])) == "[]")
        #expect(Formatting.prettyJSON(.string("a\"b")) == #""a\"b""#)
    }
}
