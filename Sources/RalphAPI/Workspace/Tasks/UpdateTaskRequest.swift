/// `PUT /api/tasks/{id}`.
public struct UpdateTaskRequest: Codable, Hashable, Sendable {
    public var status: String
    public init(status: String) { self.status = status }
}
