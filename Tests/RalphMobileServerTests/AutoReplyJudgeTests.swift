import Foundation
import RalphAPI
import Testing

@testable import RalphMobileServer

#if canImport(Glibc)
import Glibc
#endif

/// The `fake-llm` process (an OpenAI-compatible server double) on a free port, for the length of ``run(_:environment:_:)``.
final class FakeLLMServer: Sendable {
    let port: Int
    private let pid: Int32
    private let exited: AsyncStream<Void>
    var baseURL: String { "http://127.0.0.1:\(port)/v1" }

    private static func start(_ arguments: [String] = [], environment: [String: String] = [:]) async throws -> FakeLLMServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Products.path("fake-llm"))
        process.arguments = ["--port", "0"] + arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let (exits, exit) = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exit.yield(()); exit.finish() }
        try process.run()
        // The first stdout line is read on a thread of its own, never on the few threads async code runs on.
        let handle = out.fileHandleForReading
        let line: String = await withCheckedContinuation { continuation in
            Thread {
                var bytes: [UInt8] = []
                while true {
                    let chunk = handle.readData(ofLength: 1)
                    guard let byte = chunk.first, byte != 0x0A else { break }
                    bytes.append(byte)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }.start()
        }
        guard line.hasPrefix("listening on http://127.0.0.1:"), let port = line.split(separator: ":").last.flatMap({ Int($0) }) else {
            kill(process.processIdentifier, SIGKILL)
            throw TestFailure("fake-llm did not start: \(line)")
        }
        return FakeLLMServer(port: port, pid: process.processIdentifier, exited: exits)
    }

    private init(port: Int, pid: Int32, exited: AsyncStream<Void>) {
        self.port = port
        self.pid = pid
        self.exited = exited
    }

    /// Runs `body` with a started server, then kills it and waits until it is reaped.
    static func run<T>(
        _ arguments: [String] = [], environment: [String: String] = [:], _ body: (FakeLLMServer) async throws -> T
    ) async throws -> T {
        let server = try await start(arguments, environment: environment)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    func stop() async {
        kill(pid, SIGKILL)
        for await _ in exited {}
    }
}

@Suite("AutoReplyJudge against fake-llm", .serialized)
struct AutoReplyJudgeTests {
    func judge(_ server: FakeLLMServer, keyRef: String? = nil, environment: [String: String] = [:], timeout: Double? = nil) -> AutoReplyJudge {
        AutoReplyJudge(
            settings: JudgeSettings(baseUrl: server.baseURL, model: "judge-model", apiKeyRef: keyRef, timeoutSecs: timeout), environment: environment)
    }

    func expectError(_ expected: (JudgeError) -> Bool, _ body: () async throws(JudgeError) -> JudgeVerdict, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            let verdict = try await body()
            Issue.record("expected an error, got \(verdict)", sourceLocation: sourceLocation)
        } catch {
            #expect(expected(error), "unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func completeReplyIsJudgedComplete() async throws {
        try await FakeLLMServer.run() { server in
            let verdict = try await judge(server).judge(reply: "All done, tests pass. JUDGE:complete", task: "Add a login page", history: [])
            #expect(verdict.complete)
            #expect(verdict.confidence == 0.97)
            #expect(verdict.nextPrompt == nil)
            #expect(verdict.reason?.isEmpty == false)
        }
    }

    @Test func unfinishedReplyGetsTheNextPrompt() async throws {
        try await FakeLLMServer.run() { server in
            let verdict = try await judge(server).judge(reply: "I wrote the code. JUDGE:continue", task: nil, history: ["Planning."])
            #expect(!verdict.complete)
            #expect(verdict.confidence == 0.2)
            #expect(verdict.nextPrompt == "Now write the tests.")
        }
    }

    @Test func keyIsSentAsBearerAndRequiredByTheServer() async throws {
        try await FakeLLMServer.run(["--require-key", "sk-test-123"]) { server in
            let verdict = try await judge(server, keyRef: "JUDGE_TEST_KEY", environment: ["JUDGE_TEST_KEY": "sk-test-123"])
                .judge(reply: "JUDGE:complete", task: nil, history: [])
            #expect(verdict.complete)
            await expectError({ if case .http(401, let body) = $0 { body.contains("invalid_api_key") } else { false } }) { () async throws(JudgeError) in
                try await judge(server).judge(reply: "JUDGE:complete", task: nil, history: [])
            }
        }
    }

    @Test func missingEnvironmentVariableIsReportedByName() async throws {
        // No server is needed: the key is checked before anything is sent.
        let judge = AutoReplyJudge(
            settings: JudgeSettings(baseUrl: "http://127.0.0.1:1/v1", model: "m", apiKeyRef: "NO_SUCH_JUDGE_KEY"), environment: ["OTHER": "x"])
        await expectError({ $0 == .missingKey("NO_SUCH_JUDGE_KEY") }) { () async throws(JudgeError) in
            try await judge.judge(reply: "done", task: nil, history: [])
        }
        #expect(JudgeError.missingKey("NO_SUCH_JUDGE_KEY").description.contains("NO_SUCH_JUDGE_KEY"))
    }

    @Test func slowJudgeTimesOut() async throws {
        try await FakeLLMServer.run() { server in
            let clock = ContinuousClock()
            let start = clock.now
            await expectError({ $0 == .timedOut }) { () async throws(JudgeError) in
                try await judge(server, timeout: 1).judge(reply: "JUDGE:slow", task: nil, history: [])
            }
            let elapsed = clock.now - start
            #expect(elapsed >= .milliseconds(900))
            #expect(elapsed < .seconds(3), "took \(elapsed)")
        }
    }

    @Test func proseAnswerIsBad() async throws {
        try await FakeLLMServer.run() { server in
            await expectError({ if case .badAnswer = $0 { true } else { false } }) { () async throws(JudgeError) in
                try await judge(server).judge(reply: "JUDGE:garbage", task: nil, history: [])
            }
        }
    }

    @Test func fencedJSONWithProseIsAccepted() async throws {
        try await FakeLLMServer.run() { server in
            let verdict = try await judge(server).judge(reply: "JUDGE:fenced", task: nil, history: [])
            #expect(verdict.complete)
            #expect(verdict.confidence == 0.97)
        }
    }

    @Test func serverErrorIsHTTP500() async throws {
        try await FakeLLMServer.run() { server in
            await expectError({ if case .http(500, _) = $0 { true } else { false } }) { () async throws(JudgeError) in
                try await judge(server).judge(reply: "JUDGE:500", task: nil, history: [])
            }
        }
    }

    @Test func closedPortIsUnreachable() async throws {
        let judge = AutoReplyJudge(settings: JudgeSettings(baseUrl: "http://127.0.0.1:1/v1", model: "m", timeoutSecs: 10), environment: [:])
        let clock = ContinuousClock()
        let start = clock.now
        await expectError({ if case .unreachable = $0 { true } else { false } }) { () async throws(JudgeError) in
            try await judge.judge(reply: "done", task: nil, history: [])
        }
        #expect(clock.now - start < .seconds(5))
    }

    @Test func requestCarriesModelInstructionsAndReply() async throws {
        let directory = TemporaryDirectory("judge")
        let logPath = directory.path + "/requests.jsonl"
        try await FakeLLMServer.run(environment: ["FAKE_LLM_LOG": logPath]) { server in
            let long = String(repeating: "x", count: 20_000)
            _ = try await judge(server).judge(
                reply: long + " The reply text JUDGE:complete", task: "Refactor the parser", history: ["first reply", "second reply"])

            let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 1)
            let request = try #require(try JSONParser.parse(String(lines[0])).objectValue)
            #expect(request["model"]?.stringValue == "judge-model")
            #expect(request["temperature"]?.doubleValue == 0)
            #expect(request["response_format"]?.objectValue?["type"]?.stringValue == "json_object")
            guard case .array(let messages)? = request["messages"] else { Issue.record("no messages"); return }
            #expect(messages.count == 2)
            #expect(messages.first?.objectValue?["role"]?.stringValue == "system")
            #expect(messages.first?.objectValue?["content"]?.stringValue?.contains("next_prompt") == true)
            let user = try #require(messages.last?.objectValue?["content"]?.stringValue)
            #expect(messages.last?.objectValue?["role"]?.stringValue == "user")
            #expect(user.contains("The reply text JUDGE:complete"))
            #expect(user.contains("Refactor the parser"))
            #expect(user.contains("second reply"))
            // The 20 KB reply is cut to about 8 KB, keeping its end.
            #expect(user.utf8.count < 10_000)
        }
    }

    @Test func wrongKeyIsRejectedAndNotRepeated() async throws {
        try await FakeLLMServer.run(["--require-key", "sk-right"]) { server in
            let judge = judge(server, keyRef: "JUDGE_TEST_KEY", environment: ["JUDGE_TEST_KEY": "sk-wrong-secret"])
            await expectError({ if case .http(401, _) = $0 { !$0.description.contains("sk-wrong-secret") } else { false } }) { () async throws(JudgeError) in
                try await judge.judge(reply: "JUDGE:complete", task: nil, history: [])
            }
        }
    }

    @Test func answerParsing() throws {
        let v = try AutoReplyJudge.verdict(fromContent: #"Sure {"ignored"} then {"confidence": 1.7, "reason": "has {braces} \" in it"} bye"#)
        #expect(v.confidence == 1)
        #expect(v.complete)
        #expect(v.reason == #"has {braces} " in it"#)
        #expect(throws: JudgeError.self) { try AutoReplyJudge.verdict(fromContent: #"{"complete": true}"#) }
        #expect(throws: JudgeError.self) { try AutoReplyJudge.verdict(fromContent: #"{"confidence": "high"}"#) }
        #expect(JudgeVerdict(confidence: -2, complete: false).confidence == 0)
    }
}
