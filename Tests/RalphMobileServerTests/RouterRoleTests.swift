import Foundation
import HTTPTypes
import HummingbirdTesting
import RalphAPI
import Testing

@testable import RalphMobileServer

/// Every route of the table in ``RouteAccessTests``, asked in process: without a key it is 401 (unless open), and with
/// a key whose role is too small it is 403 `forbidden: needs <role>` — for the routes in role groups and for those
/// whose handler still checks.
@Suite("Route roles, asked")
struct RouterRoleTests {
    static let cliKey = "admin-secret-for-router-role-tests"

    /// A path of the route pattern: parameters filled with names that match nothing.
    static func path(_ pattern: String) -> String {
        pattern.replacingOccurrences(of: "{id}", with: "nothing").replacingOccurrences(of: "{name}", with: "nothing")
            .replacingOccurrences(of: "{rule}", with: "nothing").replacingOccurrences(of: "**", with: "nothing.yml")
    }

    /// Routes that stream for as long as the client reads: asked only where the answer comes before the stream.
    static let streams: Set<String> = ["GET /api/events", "GET /api/sessions/{id}/events", "GET /api/conversations/{id}/events"]

    @Test("no key: 401 on every route but the open ones; a smaller role: 403 needs <role>; the role itself: let through")
    func everyRoute() async throws {
        let secrets = Locked<[Role: String]>([:])
        try await RouterHarness.test({ $0.apiKey = Self.cliKey }, before: { tmp in
            let store = try KeyStore(path: tmp.path + "/data/keys.json")
            for role in Role.allCases {
                let secret = try store.create(role: role, name: nil).secret
                secrets.withLock { $0[role] = secret }
            }
        }) { client, _ in
            let keys = secrets.value
            for (route, access) in RouteAccessTests.expected.sorted(by: { $0.key < $1.key }) {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let method = HTTPRequest.Method(parts[0])!
                let path = Self.path(parts[1])
                guard let required = RouteAccessTests.role(of: access) else {
                    let open = try await client.send(method, path)
                    #expect(open.status != .unauthorized && open.status != .forbidden, "\(route) is open: \(open.status)")
                    continue
                }
                let anonymous = try await client.send(method, path)
                #expect(anonymous.status == .unauthorized, "\(route) without a key")
                #expect(anonymous.text == #"{"error":"unauthorized"}"#, "\(route)")
                for role in Role.allCases where !role.includes(required) {
                    let refused = try await client.send(method, path, headers: [("X-Api-Key", keys[role]!)])
                    #expect(refused.status == .forbidden, "\(route) as \(role)")
                    #expect(refused.text == #"{"error":"forbidden: needs \#(required.rawValue)"}"#, "\(route) as \(role)")
                }
                guard !Self.streams.contains(route), !(route.hasSuffix("/log")) else { continue }
                let allowed = try await client.send(method, path, headers: [("X-Api-Key", keys[required]!)])
                #expect(allowed.status != .unauthorized && allowed.status != .forbidden, "\(route) as \(required): \(allowed.text)")
            }
        }
    }
}
