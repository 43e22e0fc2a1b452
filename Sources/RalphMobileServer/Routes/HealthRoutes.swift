import Hummingbird
import NIOCore
import RalphAPI

/// `GET /health` (plain `OK`, what the iOS client probes) and `GET /api/health`.
struct HealthRoutes {
    let authenticator: Authenticator

    static let capabilities = ["sessions", "session_detail", "session_events", "global_events", "id_prefix", "last_event_id", "api_keys", "roles"]

    func register(on router: Router<AppRequestContext>) {
        router.get("/health") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "OK")))
        }
        router.get("/api/health") { _, _ in
            JSONResponse.make(
                HealthResponse(
                    status: "ok", version: RalphMobileVersion.current, timestamp: Timestamp.now(), protocolVersion: RalphMobileVersion.protocolVersion,
                    capabilities: Self.capabilities, authRequired: authenticator.authRequired
                )
            )
        }
    }
}
