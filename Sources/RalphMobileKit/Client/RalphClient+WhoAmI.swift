import RalphAPI

extension RalphClient {
    /// `GET /api/whoami`: the role of the key in use (admin on a trusted loopback server without keys), the key's id,
    /// whether the server asks for keys at all, and how the caller authenticated. A wrong key is ``RalphClientError/unauthorized``.
    public func whoAmI() async throws(RalphClientError) -> WhoAmI { try await get("/api/whoami") }
}
