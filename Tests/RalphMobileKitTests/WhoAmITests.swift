import Foundation
import RalphAPI
import RalphSimulator
import Testing
import TestSupport

@testable import RalphMobileKit

/// What the iOS app's shell added to the SDK: `whoAmI()`.
@Suite("whoami", .serialized)
@MainActor
struct WhoAmITests {
    @Test("whoAmI: admin on a trusted loopback server; the key's role and id on a server with keys; a wrong key is refused")
    func whoAmI() async throws {
        let open = try await KitHarness.start()
        #expect(try await open.client.whoAmI() == WhoAmI(role: .admin, keyID: nil, authRequired: false, via: "trusted"))
        await open.stop()

        let h = try await KitHarness.start(apiKey: "rmk_whoami_admin_0123456789abcd")
        #expect(try await h.client.whoAmI() == WhoAmI(role: .admin, keyID: "cli", authRequired: true, via: "key"))
        let viewer = try await h.client.createKey(role: .viewer, name: "phone")
        let asViewer = try RalphClient(baseURL: h.server.base, apiKey: viewer.secret)
        #expect(try await asViewer.whoAmI() == WhoAmI(role: .viewer, keyID: viewer.key.id, authRequired: true, via: "key"))
        let wrong = try RalphClient(baseURL: h.server.base, apiKey: "rmk_wrong_0000000000000000000")
        await #expect(throws: RalphClientError.unauthorized) { try await wrong.whoAmI() }
        let none = try RalphClient(baseURL: h.server.base)
        await #expect(throws: RalphClientError.unauthorized) { try await none.whoAmI() }
        await h.stop()
    }
}
