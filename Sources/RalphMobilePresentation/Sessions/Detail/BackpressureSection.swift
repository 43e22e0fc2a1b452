import Foundation
import RalphAPI

/// Section 4: the latest tests / lint / typecheck evidence from `build.done` and `build.blocked`.
public struct BackpressureSection: Sendable, Equatable {
    public enum Result: Sendable, Equatable { case pass, fail, notReported }

    public struct Check: Sendable, Equatable, Identifiable {
        public var name: String
        public var result: Result
        /// `✓ pass`, `✗ fail`, `not reported`, or the word the payload used (`✓ ok`).
        public var text: String
        public var accessibilityLabel: String
        public var id: String { name }

        /// pass: success, fail: danger, not reported: neutral.
        public var tone: BadgeTone {
            switch result {
            case .pass: .success
            case .fail: .danger
            case .notReported: .neutral
            }
        }
    }

    /// tests, lint, typecheck, then any other check the payload named.
    public var checks: [Check]
    /// `From build.done (event #12, iteration 3) 2m ago · 3 done · 1 blocked`.
    public var footer: String
    public var emptyText: String?

    public init(_ backpressure: Backpressure?, now: Date = Date()) {
        guard let b = backpressure else {
            checks = []
            footer = ""
            emptyText = "No build.done or build.blocked yet: tests, lint and typecheck results show here once a hat reports them."
            return
        }
        emptyText = nil
        func check(_ name: String, _ passed: Bool?, _ word: String?) -> Check {
            guard let passed else { return Check(name: name, result: .notReported, text: "not reported", accessibilityLabel: "\(name): not reported") }
            let shown = word.flatMap { $0.isEmpty ? nil : $0 } ?? (passed ? "pass" : "fail")
            return Check(
                name: name, result: passed ? .pass : .fail, text: (passed ? "✓ " : "✗ ") + shown,
                accessibilityLabel: "\(name): \(passed ? "passed" : "failed")" + (shown == "pass" || shown == "fail" ? "" : " (\(shown))"))
        }
        let main = ["tests", "lint", "typecheck"]
        let word = { (name: String) in b.checks.first { $0.name == name }?.result }
        checks = [check("tests", b.tests, word("tests")), check("lint", b.lint, word("lint")), check("typecheck", b.typecheck, word("typecheck"))]
            + b.checks.filter { !main.contains($0.name) }.map { check($0.name, $0.passed, $0.result) }
        var text = "From \(b.topic) (event #\(b.eventId), iteration \(b.iteration)) \(Formatting.relativeTime(b.at, now: now))"
        text += " · \(b.doneCount) done · \(b.blockedEvents) blocked"
        if let count = b.blockedCount { text += " (blocked count \(count))" }
        footer = text
    }
}
