import Foundation
import Logging
import NIOCore
import RalphAPI
import RalphFiles

/// Server-sent-event framing. Frames are encoded once and the same buffer is written to every subscriber.
enum SSEFrame {
    /// Sent first on every stream: how long a client should wait before reconnecting.
    static let preamble = text("retry: 2000\n\n")
    static let heartbeat = text(": keep-alive\n\n")

    static func text(_ s: String) -> ByteBuffer { ByteBuffer(string: s) }

    /// `id:` (optional), `event:` (optional) and `data:` lines, then a blank line. A newline in `data` starts a new
    /// `data:` line, as the SSE format requires.
    static func event(id: String?, name: String?, data: [UInt8]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(data.count + 48)
        if let id {
            buffer.writeString("id: ")
            buffer.writeString(id)
            buffer.writeInteger(UInt8(0x0A))
        }
        if let name {
            buffer.writeString("event: ")
            buffer.writeString(name)
            buffer.writeInteger(UInt8(0x0A))
        }
        buffer.writeString("data: ")
        if !data.contains(0x0A) && !data.contains(0x0D) {
            buffer.writeBytes(data)
        } else {
            for byte in data {
                if byte == 0x0A {
                    buffer.writeString("\ndata: ")
                } else if byte != 0x0D {
                    buffer.writeInteger(byte)
                }
            }
        }
        buffer.writeString("\n\n")
        return buffer
    }

    /// A ralph event as a `workflow` frame whose id is its line number and the check of what that line holds
    /// (``SessionEventID``).
    static func workflow(_ event: RalphEvent) -> ByteBuffer {
        let parts = workflowParts(event)
        return Self.event(id: parts.id, name: StreamEventName.workflow, data: parts.data)
    }

    /// The id and the data of a workflow event's frame, as ``workflow(_:)`` writes them (a cluster stores them, so every
    /// server streams the same bytes).
    static func workflowParts(_ event: RalphEvent) -> (id: String, data: [UInt8]) {
        let id = SessionEventID(line: event.id, check: SessionEventID.check(ts: event.ts, topic: event.topic))
        return (id.description, JSONWriter.bytes(WorkflowPayload.object(event)))
    }

    /// An `Encodable` value as an event frame.
    static func event<T: Encodable>(id: String?, name: String, value: T) -> ByteBuffer {
        switch payload(value, name: name) {
        case .success(let data): return event(id: id, name: name, data: data)
        case .failure(let error): return event(id: nil, name: "error", data: error.payload)
        }
    }

    /// `value` as wire JSON; when it cannot be encoded (a bug: our wire types always encode), the failure is logged and
    /// the payload of an `error` frame saying so comes back instead — a client sees the failure, never an empty object
    /// that looks like data.
    static func payload<T: Encodable>(_ value: T, name: String) -> Result<[UInt8], EncodingFailure> {
        do {
            return .success(Array(try WireJSON.encode(value)))
        } catch {
            logger.error("could not encode a '\(name)' frame: \(error)")
            var body = Array(#"{"error":"encoding_failed","message":"#.utf8)
            JSONWriter.writeString("the server could not encode a '\(name)' event: \(error)", into: &body)
            body.append(UInt8(ascii: "}"))
            return .failure(EncodingFailure(payload: body))
        }
    }

    /// The payload of an `error` frame sent in place of one that could not be encoded.
    struct EncodingFailure: Error {
        let payload: [UInt8]
    }

    static let logger = Logger(label: "ralph-mobile.sse")
}
