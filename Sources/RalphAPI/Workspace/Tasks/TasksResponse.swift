/// `GET /api/tasks`.
public struct TasksResponse: Codable, Hashable, Sendable {
    public var tasks: [TaskItem]
    public var total: Int
    public init(tasks: [TaskItem], total: Int) {
        self.tasks = tasks
        self.total = total
    }
}
