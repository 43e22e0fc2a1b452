import Foundation
import FuzzSupport
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

    /// The first half of the round trip every decoded body must survive: the routes' own validation, then the value
    /// encoded again as a client encodes it (`WireJSON`). Nil, after the failed check, if it does not encode.
    public static func reencode<T: Codable & Equatable & Sendable>(_ value: T) -> Data? {
        validate(value)
        do {
            return try WireJSON.encode(value)
        } catch {
            expect(false, "\(T.self): a decoded body does not encode again: \(error)")
            return nil
        }
    }

    /// The second half: `encoded` (from ``reencode(_:)``), decoded again by the fuzzer's own decoding path, is the
    /// value first decoded.
    public static func expectSame<T: Codable & Equatable & Sendable>(_ value: T, again: Result<T, any Error>, encoded: Data) {
        switch again {
        case .success(let again):
            expect(again == value, "\(T.self): decoded \(value), encoded and decoded again \(again)")
        case .failure(let error):
            expect(false, "\(T.self): \(String(decoding: encoded, as: UTF8.self)) (a decoded body, encoded again) does not decode: \(error)")
        }
    }
}
