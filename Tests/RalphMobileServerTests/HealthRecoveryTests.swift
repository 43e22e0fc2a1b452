import Logging
import RalphAPI
import RalphFiles
import Testing
import TestSupport

@testable import RalphMobileServer

/// `/api/health` tells a server still settling what the previous one left (`recovering`) from one that works (`ok`)
/// and one that could not recover something (`degraded`, in ``ChatFailureTests``).
@Suite("Health while chat recovery runs")
struct HealthRecoveryTests {
    @Test("health says recovering until chat recovery has settled, then ok")
    func recoveringThenOK() async throws {
        let tmp = TemporaryDirectory()
        let store = try ChatStore(path: tmp.path + "/chat.sqlite")
        let chat = ChatService(
            store: store, chatHub: ChatHub(queueBytes: 1 << 16, queueFrames: 64), eventHub: EventHub(queueBytes: 1 << 16, queueFrames: 64),
            roots: WorkspaceRoots([tmp.path]), configuration: ChatService.Configuration(backends: [.claude(command: "/nonexistent/claude")]),
            environment: [:], logger: Logger(label: "test.health")
        )
        #expect(await chat.healthStatus(patience: .milliseconds(50)) == HealthStatus.recovering)
        try await chat.start()
        #expect(await chat.healthStatus(patience: .zero) == HealthStatus.ok)
        await chat.shutdown()
    }
}
