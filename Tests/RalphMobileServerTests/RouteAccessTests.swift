import Foundation
import Hummingbird
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Every route the server registers and who may call it. A route added, removed or given another access fails this
/// test until the table below says so: the access of a route is a decision, not an accident.
@Suite("Route access table")
struct RouteAccessTests {
    /// `METHOD path` → access. "open" is anyone; a role is that role or above. Every route is registered in a role
    /// group: one registered on the router directly shows as "outside the groups" and fails.
    static let expected: [String: String] = [
        "GET /health": "open",
        "GET /api/health": "open",
        "POST /api/login": "open",
        "POST /api/logout": "open",
        "GET /": "open", "HEAD /": "open",
        "GET /index.html": "open", "HEAD /index.html": "open",
        "GET /manifest.webmanifest": "open", "HEAD /manifest.webmanifest": "open",
        "GET /favicon.ico": "open", "HEAD /favicon.ico": "open",
        "GET /sw.js": "open", "HEAD /sw.js": "open",
        "GET /assets/**": "open", "HEAD /assets/**": "open",
        // The API's contract and the page that renders it: they describe the API, they hold nothing of the server's.
        "GET /docs": "open", "HEAD /docs": "open",
        "GET /openapi.json": "open", "GET /openapi.yaml": "open",

        "GET /api/whoami": "viewer",
        "GET /api/sessions": "viewer",
        "GET /api/sessions/{id}": "viewer",
        "GET /api/sessions/{id}/status": "viewer",
        "GET /api/sessions/{id}/iterations": "viewer",
        "GET /api/sessions/{id}/scratchpad": "viewer",
        "GET /api/sessions/{id}/log": "viewer",
        "GET /api/robot/questions": "viewer",
        "GET /api/configs": "viewer", "GET /api/configs/**": "viewer",
        "GET /api/prompts": "viewer", "GET /api/prompts/**": "viewer",
        "GET /api/presets": "viewer",
        "GET /api/hats": "viewer",
        "GET /api/skills": "viewer", "GET /api/skills/{name}": "viewer", "POST /api/skills/{name}/load": "viewer",
        "POST /api/config/export": "viewer",
        "GET /api/loops": "viewer", "GET /api/loops/{id}": "viewer",
        "GET /api/merge-queue": "viewer",
        "GET /api/memories": "viewer", "POST /api/memories/export": "viewer",
        "GET /api/tasks": "viewer",
        "GET /api/host/metrics": "viewer", "GET /api/host/processes": "viewer", "GET /api/hosts": "viewer",

        "POST /api/sessions/{id}/pause": "operator",
        "POST /api/sessions/{id}/resume": "operator",
        "POST /api/sessions/{id}/emit": "operator",
        "POST /api/sessions/{id}/steer": "operator",
        "POST /api/robot/response": "operator",
        "POST /api/robot/guidance": "operator",

        "POST /api/sessions": "admin",
        "DELETE /api/sessions/{id}": "admin",
        "POST /api/config/import": "admin",
        "POST /api/loops": "admin", "POST /api/loops/{id}/merge": "admin", "POST /api/loops/{id}/discard": "admin",
        "PUT /api/memories": "admin",
        "POST /api/tasks": "admin", "PUT /api/tasks/{id}": "admin",
        "GET /api/keys": "admin", "POST /api/keys": "admin", "DELETE /api/keys/{id}": "admin",

        "GET /api/sessions/{id}/events": "viewer",
        "GET /api/events": "viewer",
        "GET /api/conversations": "viewer",
        "POST /api/conversations": "operator",
        "GET /api/conversations/{id}": "viewer",
        "PATCH /api/conversations/{id}": "operator",
        "DELETE /api/conversations/{id}": "operator",
        "GET /api/conversations/{id}/messages": "viewer",
        "POST /api/conversations/{id}/messages": "operator",
        "POST /api/conversations/{id}/interrupt": "operator",
        "GET /api/conversations/{id}/events": "viewer",
        "DELETE /api/conversations/{id}/session-rules/{rule}": "operator",
        "GET /api/approvals": "viewer",
        "POST /api/approvals/{id}": "operator",
        "POST /api/approvals": "operator",
        "GET /api/auto-reply/presets": "viewer",
        "GET /api/conversations/{id}/auto-reply": "viewer",
        "PUT /api/conversations/{id}/auto-reply": "operator",
        "POST /api/conversations/{id}/auto-reply/start": "operator",
        "POST /api/conversations/{id}/auto-reply/pause": "operator",
        "POST /api/conversations/{id}/auto-reply/resume": "operator",
        "POST /api/conversations/{id}/auto-reply/stop": "operator",
        "POST /api/chat/auto-response/start": "operator",
        "POST /api/chat/auto-response/pause": "operator",
        "POST /api/chat/auto-response/resume": "operator",
        "POST /api/chat/auto-response/stop": "operator",
        "GET /api/chat/{id}/progress": "viewer",
        "GET /api/notifications": "viewer",
        "GET /api/notifications/devices": "viewer",
        // Web Push and APNs need a viewer; ntfy and webhooks (the server calls a URL the caller names) an operator,
        // checked in the handler.
        "POST /api/notifications/devices": "viewer",
        "PATCH /api/notifications/devices/{id}": "viewer",
        "DELETE /api/notifications/devices/{id}": "viewer",
        "POST /api/notifications/devices/{id}/test": "viewer",
        "GET /api/notifications/live-activities": "viewer",
        "POST /api/notifications/live-activities": "viewer",
        "DELETE /api/notifications/live-activities/{id}": "viewer",
        "POST /api/notifications/presence": "viewer",
        "GET /api/notifications/deliveries": "admin",
        // The token in the body is the credential: single-use, expiring, for one decision.
        "POST /api/notifications/actions": "open",
        // Pairing a phone (issue 26): admins make single-use codes; the phone, which has no key yet, spends one (the
        // code in the body is the credential: single use, minutes long, guesses throttled).
        "POST /api/pairing": "admin",
        "POST /api/pairing/exchange": "open",
        "GET /pair": "open", "HEAD /pair": "open",
        // Prometheus metrics: an admin, or the metrics key (`--metrics-key`), which grants this alone.
        "GET /metrics": "admin or metrics key",
    ]

    /// The role a table entry names (nil for "open").
    static func role(of access: String) -> Role? {
        Role(rawValue: String(access.prefix { $0 != " " }))
    }

    /// `METHOD path` → the access of every route `router` registers ("outside the groups" for one registered on the
    /// router directly).
    static func registered(_ router: Router<AppRequestContext>, _ ledger: RouteLedger) -> [String: String] {
        var registered: [String: String] = [:]
        for route in router.routes {
            let path = route.path.description
            registered["\(route.method.rawValue) \(path)"] = ledger.access(method: route.method.rawValue, path: path)?.description ?? "outside the groups"
        }
        return registered
    }

    @Test("every registered route has the access the table gives it")
    func table() async throws {
        let tmp = TemporaryDirectory()
        let server = try RouterFixture.server(tmp)
        let (router, ledger) = server.makeRouter()
        let actual = Self.registered(router, ledger)
        #expect(actual.count == router.routes.count, "a route is registered twice")
        for key in Set(actual.keys).union(Self.expected.keys).sorted() {
            #expect(actual[key] == Self.expected[key], "\(key): registered as \(actual[key] ?? "nothing"), table says \(Self.expected[key] ?? "nothing")")
        }
        // Every route registered in a group is a route of the router, once.
        #expect(ledger.all.count == Set(ledger.all).count)
        #expect(Set(ledger.all.map { "\($0.method) \($0.path)" }).isSubset(of: actual.keys))
        // The authentication middleware lets exactly the open `/api/` routes through without a key.
        let openAPI = Set(ledger.all.filter { $0.access == .open && $0.path.hasPrefix("/api/") }.map(\.path))
        #expect(openAPI == AuthMiddleware.open)
        // The one route outside `/api/` that the authentication middleware looks at.
        #expect(ledger.all.filter { $0.access == .metrics }.map(\.path) == [MetricsRoutes.path])
    }
}
