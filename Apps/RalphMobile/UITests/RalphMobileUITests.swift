import XCTest

/// The smoke test CI runs on a simulator against `swift run ralph-mobile-server --demo` on http://127.0.0.1:8080:
/// launch, add the server through onboarding, see the demo session in the list, open it, see live events arrive.
final class RalphMobileSmokeTests: XCTestCase {
    /// The server's address: `TEST_RUNNER_RALPH_MOBILE_SERVER_URL` given to `xcodebuild test` reaches the runner as
    /// `RALPH_MOBILE_SERVER_URL`.
    private var serverURL: String {
        ProcessInfo.processInfo.environment["RALPH_MOBILE_SERVER_URL"] ?? "http://127.0.0.1:8080"
    }

    override func setUp() {
        super.setUp()
        continueAfterFailure = false
    }

    @MainActor
    func testAddTheDemoServerAndWatchItsSessionLive() throws {
        let app = XCUIApplication()
        app.launchArguments = ["-ui-testing"]
        app.launchEnvironment["RALPH_MOBILE_SERVER_URL"] = serverURL
        app.launch()

        // Onboarding, with the address filled in from the environment.
        let address = app.textFields["onboarding.address"]
        XCTAssertTrue(address.waitForExistence(timeout: 15), "the onboarding screen")
        XCTAssertEqual(address.value as? String, serverURL)
        let connect = app.buttons["onboarding.connect"]
        XCTAssertTrue(connect.isEnabled)
        connect.tap()

        // The demo session in the list.
        let row = app.descendants(matching: .any).matching(identifier: "sessions.row").firstMatch
        if !row.waitForExistence(timeout: 30) {
            let failure = app.descendants(matching: .any).matching(identifier: "onboarding.failure").firstMatch
            XCTFail(failure.exists ? "onboarding failed: \(failure.label)" : "no session row in the list")
        }
        row.tap()

        // Its live events: the count goes up while we watch.
        let count = app.descendants(matching: .any).matching(identifier: "session.eventCount").firstMatch
        XCTAssertTrue(count.waitForExistence(timeout: 20), "the session's event count")
        let first = Int(count.value as? String ?? "") ?? 0
        let more = XCTNSPredicateExpectation(predicate: NSPredicate(format: "value.integerValue > %d", first), object: count)
        XCTAssertEqual(XCTWaiter().wait(for: [more], timeout: 60), .completed, "new events arrive live (had \(first))")
        XCTAssertTrue(app.descendants(matching: .any).matching(identifier: "session.event").firstMatch.exists, "events are listed")
    }
}
