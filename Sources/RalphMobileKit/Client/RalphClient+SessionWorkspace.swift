import RalphAPI

extension RalphClient {
    /// The hats of the workspace a run belongs to (`GET /api/hats?session=<id>`): a run in a subdirectory or a
    /// worktree shows the hats its own config defines, not those of the server's first root.
    public func hats(forSession sessionID: String) async throws(RalphClientError) -> [HatItem] {
        try await get("/api/hats", query: [("session", sessionID)], as: HatsResponse.self).hats
    }
}
