/// `POST /api/loops/{id}/merge` and `/discard`.
public struct OperationResponse: Codable, Hashable, Sendable {
    public var success: Bool
    public var message: String
    public init(success: Bool, message: String) {
        self.success = success
        self.message = message
    }
}
