import Testing

@testable import AgentRunner

/// The rule-based detectors of the auto-reply loop, on realistic replies: what must fire and what must not.
@Suite("Auto-reply detectors")
struct AutoReplyDetectorTests {
    @Test("Every rule pattern compiles")
    func patternsCompile() throws {
        for pattern in CompletionDetector.rules.map(\.pattern) + CompletionDetector.negations.map(\.pattern)
            + ShowstopperDetector.rules.map(\.pattern) + [ShowstopperDetector.errorLine]
        {
            _ = try Regex(pattern)
        }
    }

    @Test(
        "Completion: the rule table, highest confidence wins",
        arguments: [
            ("All stories are implemented.\n\nLOOP_COMPLETE", 1.0, true, "loop_complete"),
            ("I implemented the parser and verified it. TASK COMPLETE", 0.95, true, "task_complete"),
            ("The task is complete: the endpoint returns 404 for unknown ids.", 0.95, true, "task_complete"),
            ("All tasks are completed and committed.", 0.95, true, "task_complete"),
            ("I’m done with the refactor; the module is split in three files.", 0.85, false, "done_statement"),
            ("Everything is done. The README documents the new flags.", 0.85, false, "done_statement"),
            ("The implementation is complete and the docs are updated.", 0.85, false, "done_statement"),
            ("Ran `swift test`: all 42 tests passed.", 0.8, false, "tests_pass"),
            ("Executed 128 tests, with 0 failures (0 unexpected) in 3.2 seconds", 0.8, false, "tests_pass"),
            ("Test Suite 'All tests' passed at 2027-01-15 08:00:00.", 0.8, false, "tests_pass"),
            ("Build succeeded.", 0.8, false, "tests_pass"),
            ("I finished wiring the settings screen.", 0.6, false, "moderate"),
            ("The PR is ready for review.", 0.6, false, "moderate"),
            ("The change looks good to me.", 0.4, false, "weak"),
            ("With this fix the upload should work.", 0.4, false, "weak"),
        ] as [(String, Double, Bool, String)]
    )
    func completion(reply: String, confidence: Double, explicit: Bool, rule: String) {
        let verdict = CompletionDetector.evaluate(reply)
        #expect(verdict == .init(confidence: confidence, explicit: explicit, rule: rule))
    }

    @Test(
        "Completion: negations and failures are never completion",
        arguments: [
            "I have not finished yet; the migration script is half written.",
            "The tests are not passing: `testUpload` times out.",
            "I haven't finished the parser. Next, I will add the error cases.",
            "The task cannot be completed without the schema file.",
            "I was unable to complete the deployment.",
            "3 tests failed, the rest passed.",
            "Executed 40 tests, with 2 failures.",
            "Build succeeded but the tests fail on Linux.",
            "Step 2 of 4 finished. I still need to update the docs.",
            "Finished the model.\n- TODO: wire the view",
            "The implementation is not complete yet.",
            "I'm not done: the importer still crashes.",
        ]
    )
    func negated(reply: String) {
        let verdict = CompletionDetector.evaluate(reply)
        #expect(verdict.confidence <= CompletionDetector.negatedCap)
        #expect(!verdict.explicit)
    }

    @Test("Completion: no match gives 0; matching is case-insensitive")
    func noMatch() {
        #expect(CompletionDetector.evaluate("I read the file and started on the parser.") == .none)
        #expect(CompletionDetector.evaluate("") == .none)
        #expect(CompletionDetector.evaluate("task complete").explicit)
        #expect(CompletionDetector.evaluate("loop_complete").confidence == 1)
    }

    @Test(
        "Showstoppers: replies that need a person",
        arguments: [
            ("Should I delete the old migrations?", "destructive"),
            ("Do you want me to force push to main to clean up the history?", "destructive"),
            ("Can I run rm -rf build/ and start over?", "destructive"),
            ("Please confirm before I drop the users table.", "destructive"),
            ("The deploy failed: credentials missing for the registry.", "credentials"),
            ("I need your password to sign the release.", "credentials"),
            ("The OPENAI API key is missing, so I cannot call the endpoint.", "credentials"),
            ("git push: authentication failed for 'https://github.com/x/y'", "credentials"),
            ("You'll need to log in to the App Store Connect portal first.", "credentials"),
            ("open /etc/shadow: permission denied", "permission"),
            ("NEED HUMAN INTERVENTION: the signing certificate expired.", "person"),
            ("I cannot continue until the API contract is decided.", "person"),
            ("I'm blocked on the missing design for the settings page.", "person"),
            ("The API returned 429: rate limit exceeded.", "rate limit"),
            ("Your quota exceeded for this month.", "quota"),
            ("The linker ran out of memory: out of memory (killed)", "memory"),
        ] as [(String, String)]
    )
    func showstopper(reply: String, reasonContains: String) throws {
        let reason = try #require(ShowstopperDetector.evaluate(reply, previous: []))
        #expect(reason.contains(reasonContains))
    }

    @Test(
        "Showstoppers: ordinary replies are not",
        arguments: [
            "I deleted the temp file and re-ran the build.",
            "I removed the unused migration and dropped the dead code path.",
            "The cleanup script should delete temp files after each run, so I added that.",
            "I added API key validation to the settings form; the tests cover it.",
            "I implemented rate limiting on the upload endpoint (10 requests per minute).",
            "Added a login screen with email and password fields.",
            "Fixed the error: the decoder now accepts missing fields.",
        ]
    )
    func notShowstopper(reply: String) {
        #expect(ShowstopperDetector.evaluate(reply, previous: []) == nil)
    }

    @Test("Showstoppers: the same kind of error coming back")
    func repeatedErrors() {
        let current = "Build failed again:\nerror: cannot find 'Parser' in scope"
        let errors = ["main.swift:3: error: cannot find 'Parser' in scope", "Fatal error: Index out of range", "Thread 1: panic at parse"]
        #expect(ShowstopperDetector.evaluate(current, previous: ["I started.", errors[0], errors[1]]) == "the same kind of error keeps coming back")
        // Only one of the last three had an error.
        #expect(ShowstopperDetector.evaluate(current, previous: [errors[0], errors[1], "Fixed it.", "Moved on.", errors[2]]) == nil)
        // The current reply has none.
        #expect(ShowstopperDetector.evaluate("All good now.", previous: errors) == nil)
    }

    @Test("Stuck: Jaccard similarity over word sets, and the window")
    func stuck() {
        #expect(StuckDetector.similarity("", "") == 1)
        #expect(StuckDetector.similarity("a b", "") == 0)
        #expect(StuckDetector.similarity("The build FAILED.", "the build failed") == 1)
        #expect(StuckDetector.similarity("a b c d", "a b c e") == 3.0 / 5.0)
        let same = "I tried to fix the import error in Parser.swift but the build still fails the same way."
        let other = "I rewrote the tokenizer and added three tests for escaped quotes in strings."
        #expect(StuckDetector.isStuck([other, same, same, same]))
        #expect(!StuckDetector.isStuck([same, same]))
        #expect(!StuckDetector.isStuck([same, other, same]))
        #expect(StuckDetector.isStuck([same, same], window: 2))
        #expect(!StuckDetector.isStuck([same, same, same], threshold: 1.01))
    }
}
