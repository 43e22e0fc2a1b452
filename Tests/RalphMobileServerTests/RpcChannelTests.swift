import AgentRunner
import Foundation
import Logging
import RalphAPI
import Testing

/// The server's end of ralph's RPC mode against the fake-ralph double, without a server: commands refused the way
/// ralph refuses them, and `abort` ending the loop without a signal.
@Suite("RPC channel to ralph (fake-ralph --rpc)")
struct RpcChannelTests {
    @Test("prompt after start and set_hat are refused with ralph 2.10.1's words; get_state is answered; abort ends the loop")
    func commands() async throws {
        let tmp = TemporaryDirectory()
        let dir = tmp.subdirectory("proj")
        Fixture.write("fake_ralph:\n  iterations: 500\n  pace: 0.05\n  rpc_tool_seconds: 0.05\n", to: dir + "/ralph.yml")
        let log = tmp.path + "/run.log"
        let piped = try ChildProcess.spawnPiped(
            Products.fakeRalph, arguments: ["run", "-c", "ralph.yml", "-p", "Do it", "--rpc"], workingDirectory: dir,
            environment: ProcessInfo.processInfo.environment, logFile: log
        )
        let channel = RpcChannel(input: piped.input, output: piped.output, logFile: log, logger: Logger(label: "test")) {}
        try await eventually(5, "an iteration") { channel.telemetry.iterations.count >= 1 }

        let prompt = try await channel.send("prompt", ["prompt": "again"], timeout: .seconds(5))
        #expect(prompt == .refused("loop already running; use guidance or steer instead"))
        // ralph 2.10.1 parses set_hat and answers "not yet implemented": the server offers no hat switch for that reason.
        #expect(try await channel.send("set_hat", ["hat": "builder"], timeout: .seconds(5)) == .refused("not yet implemented"))
        #expect(try await channel.send("get_state", timeout: .seconds(5)) == .accepted)

        #expect(try await channel.send("abort", ["reason": "enough"], timeout: .seconds(5)) == .accepted)
        let exit = await piped.process.waitForExit(timeout: .seconds(10))
        #expect(exit == .exited(130))
        try await eventually(5, "the channel to see the end") { !channel.telemetry.connected }
        #expect(channel.telemetry.terminatedReason == "interrupted")
        let afterwards = try await channel.send("get_state", timeout: .seconds(2))
        #expect(afterwards == .refused("ralph's RPC input is closed"))
        withExtendedLifetime(tmp) {}
    }

    @Test("ralph parses commands strictly: a numeric id, an unknown type or a missing field is a `parse` response with no id")
    func strictParsing() async throws {
        let tmp = TemporaryDirectory()
        let dir = tmp.subdirectory("proj")
        Fixture.write("fake_ralph:\n  iterations: 500\n  pace: 0.05\n", to: dir + "/ralph.yml")
        let piped = try ChildProcess.spawnPiped(
            Products.fakeRalph, arguments: ["run", "-c", "ralph.yml", "-p", "Do it", "--rpc"], workingDirectory: dir,
            environment: ProcessInfo.processInfo.environment, logFile: tmp.path + "/run.log"
        )
        let output = FileHandle(fileDescriptor: piped.output, closeOnDealloc: true)
        let input = FileHandle(fileDescriptor: piped.input, closeOnDealloc: true)
        for line in [#"{"type":"get_state","id":7}"#, #"{"type":"jump","id":"a"}"#, #"{"type":"steer","id":"b"}"#, #"{"type":"get_state","id":"c"}"#] {
            input.write(Data((line + "\n").utf8))
        }
        var responses: [[String: Any]] = []
        var buffer = Data()
        let deadline = Date().addingTimeInterval(10)
        while responses.count < 4, Date() < deadline {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                if let object = try JSONSerialization.jsonObject(with: line) as? [String: Any], object["type"] as? String == "response" { responses.append(object) }
            }
        }
        #expect(responses.count == 4, "\(responses)")
        #expect(responses.prefix(3).allSatisfy { $0["command"] as? String == "parse" && $0["id"] == nil && $0["success"] as? Bool == false }, "\(responses)")
        #expect(responses.last?["id"] as? String == "c" && responses.last?["success"] as? Bool == true)
        let state = try #require(responses.last?["data"] as? [String: Any])
        #expect(Set(state.keys) == ["iteration", "max_iterations", "hat", "hat_display", "backend", "completed", "started_at", "iteration_started_at", "task_counts", "active_task", "total_cost_usd"])
        kill(piped.process.pid, SIGKILL)
        _ = await piped.process.waitForExit(timeout: .seconds(10))
        withExtendedLifetime(tmp) {}
    }
}
