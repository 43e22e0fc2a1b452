import Foundation
import RalphAPI

/// A request body type: what a route decodes, and what a client encodes.
public typealias RequestBodyType = any (Codable & Equatable & Sendable).Type

/// The request bodies of the server's routes, shared by `request-body` (the types with the server's decoder
/// settings) and `request-body-server` (the server's own decoding path), which read the same corpus.
public enum RequestBodies {
    /// Every request body type the routes decode with `request.decode(as:context:)`, in a fixed order: a corpus
    /// input's first byte picks one (modulo their number), so append new ones at the end.
    ///
    /// Missing: `AutoResponseSessionRequest` (`{"sessionId": …}`), which is internal to the server.
    public static let types: [RequestBodyType] = [
        StartSessionRequest.self,
        EmitRequest.self,
        SteerRequest.self,
        RobotResponseRequest.self,
        RobotGuidanceRequest.self,
        SpawnLoopRequest.self,
        LoginRequest.self,
        ConfigImportRequest.self,
        CreateAPIKeyRequest.self,
        CreateConversationRequest.self,
        PatchConversationRequest.self,
        SendMessageRequest.self,
        ApprovalDecisionRequest.self,
        BatchApprovalRequest.self,
        AutoReplySettings.self,
        AutoResponseStartRequest.self,
        MemoriesUpdate.self,
        CreateTaskRequest.self,
        UpdateTaskRequest.self,
    ]

    /// The type an input's first byte picks and the body after it; nil for an empty input.
    public static func pick(_ input: UnsafeBufferPointer<UInt8>) -> (type: RequestBodyType, body: Data)? {
        guard let selector = input.first else { return nil }
        return (types[Int(selector) % types.count], Data(input.dropFirst()))
    }

    /// What the routes read of a decoded body beyond its fields (its own validation).
    public static func validate(_ value: some Sendable) {
        if let settings = value as? AutoReplySettings { _ = settings.problems }
        if let request = value as? AutoResponseStartRequest { _ = request.settings?.problems }
    }
}
