extension AppRequestContext {
    /// The caller's identity; `401 unauthorized` without one (routes behind a role group always have one).
    func requireIdentity() throws(APIError) -> CallerIdentity {
        guard let identity else { throw .unauthorized }
        return identity
    }
}
