/// What an API key may do. Each role includes the ones below it.
public enum Role: String, Codable, Hashable, Sendable, CaseIterable, Comparable {
    /// Read only.
    case viewer
    /// Steer, emit, pause/resume, chat, approvals.
    case `operator`
    /// Everything, including starting and stopping processes and writing files.
    case admin

    var rank: Int {
        switch self {
        case .viewer: 0
        case .operator: 1
        case .admin: 2
        }
    }

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }

    /// Whether this role may do what `required` may do.
    public func includes(_ required: Role) -> Bool { self >= required }
}
