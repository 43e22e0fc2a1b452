extension EventStream {
    /// Follows the stream for a model: a task that hands each update to `apply` on the main actor while holding
    /// `owner` weakly, so a model that goes away ends its stream. The task ends with the stream, when cancelled (the
    /// model keeps it and cancels it to close the stream), or once the owner is gone.
    @MainActor
    public func follow<Owner: AnyObject & Sendable>(by owner: Owner, _ apply: @escaping @MainActor (Owner, Update) async -> Void) -> Task<Void, Never> {
        Task { [weak owner] in
            for await update in updates() {
                guard let owner else { return }
                await apply(owner, update)
            }
        }
    }
}
