import Foundation
import Testing

@testable import RalphAPI

/// Seconds since 1970 of a few instants, computed independently (`calendar.timegm`).
private enum Epoch {
    static let ralphSample = 1_770_278_953.0  // 2026-02-05T08:09:13Z
    static let jan15 = 1_705_314_225.0  // 2024-01-15T10:23:45Z
    static let leapDay2024 = 1_709_164_800.0  // 2024-02-29T00:00:00Z
    static let leapDay2000Noon = 951_825_600.0  // 2000-02-29T12:00:00Z
    static let year1900 = -2_208_988_800.0  // 1900-01-01T00:00:00Z
    static let moonLanding = -14_182_940.0  // 1969-07-20T20:17:40Z
}

private func seconds(_ text: String) -> Double? {
    Timestamp.parse(text)?.timeIntervalSince1970
}

@Suite("Timestamp")
struct TimestampTests {
    // MARK: Parsing

    @Test("ralph's nanosecond +00:00 timestamps parse with their fraction")
    func parsesRalphNanoseconds() throws {
        let value = try #require(seconds("2026-02-05T08:09:13.890130179+00:00"))
        #expect(abs(value - (Epoch.ralphSample + 0.890130179)) < 1e-6)
    }

    @Test("millisecond Z timestamps parse")
    func parsesMillisecondsZ() throws {
        let value = try #require(seconds("2026-02-05T08:09:13.890Z"))
        #expect(abs(value - (Epoch.ralphSample + 0.890)) < 1e-6)
    }

    @Test("timestamps without a fraction parse to whole seconds")
    func parsesWholeSeconds() {
        #expect(seconds("2024-01-15T10:23:45Z") == Epoch.jan15)
        #expect(seconds("2024-01-15T10:23:45+00:00") == Epoch.jan15)
        #expect(seconds("2024-01-15T10:23:45-00:00") == Epoch.jan15)
    }

    @Test("lower-case t and z and a space separator are accepted")
    func separators() {
        #expect(seconds("2024-01-15t10:23:45z") == Epoch.jan15)
        #expect(seconds("2024-01-15 10:23:45Z") == Epoch.jan15)
        #expect(seconds("2024-01-15T10:23:45z") == Epoch.jan15)
    }

    @Test("offsets are converted to UTC", arguments: [
        "2024-01-15T12:23:45+02:00",
        "2024-01-15T12:23:45+0200",
        "2024-01-15T04:53:45-0530",
        "2024-01-15T04:53:45-05:30",
        "2024-01-15T23:23:45+13:00",
        "2024-01-14T23:23:45-11:00",
    ])
    func offsets(_ text: String) {
        #expect(seconds(text) == Epoch.jan15)
    }

    @Test("an offset can move the instant across a day, month and year boundary")
    func offsetAcrossYear() {
        // 2024-01-01T01:00:00+02:00 is 2023-12-31T23:00:00Z.
        #expect(seconds("2024-01-01T01:00:00+02:00") == 1_704_063_600)
    }

    @Test("leap days parse and the leap day is a real day")
    func leapYears() throws {
        #expect(seconds("2024-02-29T00:00:00Z") == Epoch.leapDay2024)
        #expect(seconds("2000-02-29T12:00:00Z") == Epoch.leapDay2000Noon)
        let feb28 = try #require(seconds("2024-02-28T00:00:00Z"))
        let mar1 = try #require(seconds("2024-03-01T00:00:00Z"))
        #expect(mar1 - feb28 == 2 * 86_400)
        // 2100 is not a leap year.
        let feb28of2100 = try #require(seconds("2100-02-28T00:00:00Z"))
        let mar1of2100 = try #require(seconds("2100-03-01T00:00:00Z"))
        #expect(mar1of2100 - feb28of2100 == 86_400)
    }

    @Test("dates before 1970 parse")
    func before1970() {
        #expect(seconds("1900-01-01T00:00:00Z") == Epoch.year1900)
        #expect(seconds("1969-07-20T20:17:40Z") == Epoch.moonLanding)
        #expect(seconds("1969-12-31T23:59:59.500Z") == -0.5)
    }

    @Test("text that is not an RFC 3339 date-time is rejected", arguments: [
        "",
        "garbage",
        "2024-01-15T10:23:45",  // no zone
        "2024-01-15T10:23:45.123",  // no zone
        "2024-13-01T00:00:00Z",  // month 13
        "2024-00-10T00:00:00Z",  // month 0
        "2024-01-00T00:00:00Z",  // day 0
        "2024-01-32T00:00:00Z",  // day 32
        "2024-01-15T24:00:00Z",  // hour 24
        "2024-01-15T10:60:00Z",  // minute 60
        "2024-01-15T10:23:61Z",  // second 61
        "2024-01-15T10:23:45Zjunk",  // trailing junk
        "2024-01-15T10:23:45Z ",  // trailing space
        " 2024-01-15T10:23:45Z",  // leading space
        "2024-01-15T10:23:45+00:00x",  // junk after an offset
        "2024-01-15T10:23:45.Z",  // fraction without digits
        "2024-01-15",  // date only
        "2024-01-15T10:23Z",  // no seconds
        "2024-01-15X10:23:45Z",  // bad separator
        "2024/01/15T10:23:45Z",
        "24-01-15T10:23:45Z",
        "2024-01-15T10:23:45+2:00",
        "2024-01-15T10:23:45+02",
        "2024-01-15T10:23:45+25:00",
        "2024-01-15T10:23:45 UTC",
        "１２３４-01-15T10:23:45Z",  // full-width digits
    ])
    func rejects(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test(
        "days past the end of the month are rejected, leap years respected",
        arguments: ["2023-02-29T00:00:00Z", "2024-02-30T00:00:00Z", "2024-04-31T00:00:00Z"]
    )
    func rejectsDaysPastTheEndOfTheMonth(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    // MARK: Formatting

    @Test("format writes UTC with exactly three fractional digits and Z")
    func formatKnownValue() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: Epoch.jan15)) == "2024-01-15T10:23:45.000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: Epoch.jan15 + 0.25)) == "2024-01-15T10:23:45.250Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: Epoch.leapDay2024)) == "2024-02-29T00:00:00.000Z")
    }

    @Test("format handles dates before 1970, the year 0 and years past 9999")
    func formatEdges() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -62_167_219_200)) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 253_402_300_799.5)) == "9999-12-31T23:59:59.500Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00.000Z")
    }

    @Test("format truncates below the millisecond instead of rounding up")
    func formatTruncates() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: Epoch.jan15 + 0.9999)) == "2024-01-15T10:23:45.999Z")
    }

    @Test("a parsed millisecond timestamp formats back to the same text", arguments: [
        "2026-02-05T08:09:13.890Z",
        "2024-01-15T10:23:45.001Z",
        "2024-01-15T10:23:45.999Z",
        "2024-01-15T10:23:45.123Z",
        "2026-02-05T09:30:00.500Z",
        "1999-12-31T23:59:59.990Z",
    ])
    func formatOfParseIsIdentity(_ text: String) throws {
        let date = try #require(Timestamp.parse(text))
        #expect(Timestamp.format(date) == text)
    }

    /// Timestamps `prefix.000Z` … `prefix.999Z` (and their nanosecond `+00:00` forms) that do not format back to
    /// the same millisecond text.
    private func millisecondMismatches(_ prefix: String) throws -> [String] {
        var mismatches: [String] = []
        for ms in 0..<1000 {
            let digits = String(ms + 1000).dropFirst()
            let text = "\(prefix).\(digits)Z"
            let date = try #require(Timestamp.parse(text))
            if Timestamp.format(date) != text { mismatches.append("\(text) -> \(Timestamp.format(date))") }
            let nanos = try #require(Timestamp.parse("\(prefix).\(digits)000000+00:00"))
            if Timestamp.format(nanos) != text { mismatches.append("\(prefix).\(digits)000000+00:00 -> \(Timestamp.format(nanos))") }
        }
        return mismatches
    }

    @Test("every millisecond value after 1970 survives parse then format", arguments: ["2026-02-05T08:09:13", "2024-01-15T10:23:45", "2099-12-31T23:59:59"])
    func everyMillisecondRoundTrips(_ prefix: String) throws {
        let mismatches = try millisecondMismatches(prefix)
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, e.g. \(mismatches.prefix(3))")
    }

    @Test(
        "every millisecond round-trips, near the epoch and before 1970 too",
        arguments: ["1970-01-01T00:00:00", "1969-07-20T20:17:40", "2004-06-01T12:00:00"]
    )
    func everyMillisecondRoundTripsEverywhere(_ prefix: String) throws {
        let mismatches = try millisecondMismatches(prefix)
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, e.g. \(mismatches.prefix(3))")
    }

    @Test("format handles dates before 1970")
    func formatBefore1970() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -86_400)) == "1969-12-31T00:00:00.000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: Epoch.moonLanding)) == "1969-07-20T20:17:40.000Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: Epoch.year1900)) == "1900-01-01T00:00:00.000Z")
    }

    @Test("formatRalph writes nine fractional digits and +00:00")
    func formatRalph() {
        #expect(Timestamp.formatRalph(Date(timeIntervalSince1970: Epoch.ralphSample + 0.5)) == "2026-02-05T08:09:13.500000000+00:00")
        #expect(Timestamp.formatRalph(Date(timeIntervalSince1970: Epoch.jan15)) == "2024-01-15T10:23:45.000000000+00:00")
        #expect(Timestamp.formatRalph(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500000000+00:00")
        let text = Timestamp.formatRalph(Date(timeIntervalSince1970: Epoch.ralphSample + 0.890130179))
        #expect(text.hasPrefix("2026-02-05T08:09:13.890130"))
        #expect(text.hasSuffix("+00:00"))
        #expect(text.utf8.count == "2026-02-05T08:09:13.890130179+00:00".utf8.count)
    }

    static let sampleDates: [Double] = [
        0, 1, -1, 0.001, -0.001, Epoch.jan15 + 0.123456, Epoch.ralphSample + 0.890130179, Epoch.year1900 + 0.75,
        Epoch.moonLanding + 0.0005, 4_102_444_799.999, 1_000_000_000.5,
    ]

    @Test("parse(format(d)) is within a millisecond of d", arguments: sampleDates)
    func formatRoundTrip(_ interval: Double) throws {
        let date = Date(timeIntervalSince1970: interval)
        let back = try #require(Timestamp.parse(Timestamp.format(date)))
        let delta = date.timeIntervalSince1970 - back.timeIntervalSince1970
        #expect(delta > -1e-6 && delta < 0.001, "delta \(delta) for \(Timestamp.format(date))")
    }

    @Test("parse(formatRalph(d)) is within a microsecond of d", arguments: sampleDates)
    func formatRalphRoundTrip(_ interval: Double) throws {
        let date = Date(timeIntervalSince1970: interval)
        let back = try #require(Timestamp.parse(Timestamp.formatRalph(date)))
        #expect(abs(date.timeIntervalSince1970 - back.timeIntervalSince1970) < 1e-6)
    }

    @Test("now() is a parseable timestamp close to the current time")
    func now() throws {
        let before = Date().addingTimeInterval(-1)
        let parsed = try #require(Timestamp.parse(Timestamp.now()))
        #expect(parsed >= before)
        #expect(parsed <= Date().addingTimeInterval(1))
    }
}
