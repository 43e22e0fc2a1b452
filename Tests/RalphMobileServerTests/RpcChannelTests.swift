import AgentRunner
import Foundation
import Logging
import RalphAPI
import Testing

/// The server's end of ralph's RPC mode against the fake-ralph double, without a server: commands refused the way
/// ralph refuses them, and `abort` ending the loop without a signal.
@Suite("RPC channel to ralph (fake-ralph --rpc)")
struct RpcChannelTests {
    @Test("prompt after start and an unknown hat are refused with ralph's words; get_state is answered; abort ends the loop")
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

        let prompt = try await channel.send("prompt", ["message": "again"], timeout: .seconds(5))
        #expect(prompt == .refused("prompt is accepted only at launch; pass -p instead"))
        let hat = try await channel.send("set_hat", ["hat": "nobody"], timeout: .seconds(5))
        guard case .refused(let why) = hat else { throw TestFailure("set_hat of an unknown hat was \(String(describing: hat))") }
        #expect(why.contains("unknown hat nobody"))
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
}
