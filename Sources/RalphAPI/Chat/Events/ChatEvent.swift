import Foundation

/// An event of a conversation, as the driver produces it and as clients decode it.
public enum ChatEvent: Hashable, Sendable {
    case turnStart(TurnStartEvent)
    case chunk(ChunkEvent)
    case segmentEnd(SegmentEndEvent)
    case toolStart(ToolEvent)
    case toolEnd(ToolEvent)
    case permissionRequired(PermissionRequiredEvent)
    case permissionResolved(PermissionResolvedEvent)
    case complete(CompleteEvent)
    case error(ChatErrorEvent)
    case titleUpdate(TitleUpdateEvent)
    case status(StatusEvent)
    case autoReply(AutoReplyProgress)
    case permissions(PermissionsEvent)

    public var name: String {
        switch self {
        case .turnStart: ChatEventName.turnStart
        case .chunk: ChatEventName.chunk
        case .segmentEnd: ChatEventName.segmentEnd
        case .toolStart: ChatEventName.toolStart
        case .toolEnd: ChatEventName.toolEnd
        case .permissionRequired: ChatEventName.permissionRequired
        case .permissionResolved: ChatEventName.permissionResolved
        case .complete: ChatEventName.complete
        case .error: ChatEventName.error
        case .titleUpdate: ChatEventName.titleUpdate
        case .status: ChatEventName.status
        case .autoReply: ChatEventName.autoReply
        case .permissions: ChatEventName.permissions
        }
    }

    /// The event's data, encoded the way it goes on the wire.
    public func encodedData(with encoder: JSONEncoder) throws -> Data {
        switch self {
        case .turnStart(let e): try encoder.encode(e)
        case .chunk(let e): try encoder.encode(e)
        case .segmentEnd(let e): try encoder.encode(e)
        case .toolStart(let e), .toolEnd(let e): try encoder.encode(e)
        case .permissionRequired(let e): try encoder.encode(e)
        case .permissionResolved(let e): try encoder.encode(e)
        case .complete(let e): try encoder.encode(e)
        case .error(let e): try encoder.encode(e)
        case .titleUpdate(let e): try encoder.encode(e)
        case .status(let e): try encoder.encode(e)
        case .autoReply(let e): try encoder.encode(e)
        case .permissions(let e): try encoder.encode(e)
        }
    }

    /// Decodes an event from its SSE name and data; nil for a name this version does not know.
    public static func decode(name: String, data: Data, decoder: JSONDecoder = WireJSON.decoder()) throws -> ChatEvent? {
        switch name {
        case ChatEventName.turnStart: .turnStart(try decoder.decode(TurnStartEvent.self, from: data))
        case ChatEventName.chunk: .chunk(try decoder.decode(ChunkEvent.self, from: data))
        case ChatEventName.segmentEnd: .segmentEnd(try decoder.decode(SegmentEndEvent.self, from: data))
        case ChatEventName.toolStart: .toolStart(try decoder.decode(ToolEvent.self, from: data))
        case ChatEventName.toolEnd: .toolEnd(try decoder.decode(ToolEvent.self, from: data))
        case ChatEventName.permissionRequired: .permissionRequired(try decoder.decode(PermissionRequiredEvent.self, from: data))
        case ChatEventName.permissionResolved: .permissionResolved(try decoder.decode(PermissionResolvedEvent.self, from: data))
        case ChatEventName.complete: .complete(try decoder.decode(CompleteEvent.self, from: data))
        case ChatEventName.error: .error(try decoder.decode(ChatErrorEvent.self, from: data))
        case ChatEventName.titleUpdate: .titleUpdate(try decoder.decode(TitleUpdateEvent.self, from: data))
        case ChatEventName.status: .status(try decoder.decode(StatusEvent.self, from: data))
        case ChatEventName.autoReply: .autoReply(try decoder.decode(AutoReplyProgress.self, from: data))
        case ChatEventName.permissions: .permissions(try decoder.decode(PermissionsEvent.self, from: data))
        default: nil
        }
    }
}
