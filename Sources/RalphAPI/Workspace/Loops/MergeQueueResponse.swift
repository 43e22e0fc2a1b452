/// `GET /api/merge-queue`.
public struct MergeQueueResponse: Codable, Hashable, Sendable {
    public var pending: [MergeQueueItem]
    public var completed: [MergeQueueItem]
    public init(pending: [MergeQueueItem], completed: [MergeQueueItem]) {
        self.pending = pending
        self.completed = completed
    }
}
