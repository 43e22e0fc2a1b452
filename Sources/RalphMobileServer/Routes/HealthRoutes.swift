import Hummingbird
import NIOCore
import RalphAPI

/// `GET /health` (plain `OK`, what the iOS client probes) and `GET /api/health`.
struct HealthRoutes {
    let authenticator: Authenticator
    let chat: ChatService
    /// Notification channels as capabilities: `notify:<channel>` for each that can deliver, `notify_unavailable:<channel>`
    /// for one that cannot (APNs without credentials), so a client says so instead of failing silently.
    let notificationCapabilities: [String]

    static let capabilities = ["sessions", "session_detail", "session_events", "global_events", "id_prefix", "last_event_id", "api_keys", "roles"]

    /// The agent CLIs as capabilities: `chat`, `chat_backends:<the ones conversations can use>`, and for each one found
    /// `<name>_version:<version>` and `<name>_permission_modes:<a,b,…>`.
    static func capabilities(of agents: [AgentInfo]) -> [String] {
        let usable = agents.filter { $0.error == nil }
        var list = ["chat", "chat_backends:" + usable.map(\.name).joined(separator: ",")]
        for agent in agents {
            if let version = agent.version { list.append("\(agent.name)_version:\(version)") }
            list.append("\(agent.name)_permission_modes:" + agent.permissionModes.joined(separator: ","))
        }
        return list
    }

    func register(on routes: Routes) {
        routes.open.get("/health") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "OK")))
        }
        routes.open.get("/api/health") { _, _ in
            // A health check must answer quickly, even while a slow CLI is still being asked about itself or chat
            // recovery still runs.
            async let probed = chat.agents(patience: .seconds(3))
            let status = await chat.healthStatus(patience: .seconds(3))
            let agents = await probed
            return JSONResponse.make(
                HealthResponse(
                    status: status, version: RalphMobileVersion.current, timestamp: Timestamp.now(), protocolVersion: RalphMobileVersion.protocolVersion,
                    capabilities: Self.capabilities + Self.capabilities(of: agents) + notificationCapabilities, authRequired: authenticator.authRequired,
                    agents: agents
                )
            )
        }
    }
}
