import Foundation
import Hummingbird
import NIOCore
import RalphAPI
import Synchronization

/// Encodes the session list, keeping each session's JSON while the session is unchanged: a list of a thousand
/// finished runs re-encodes only what moved (live runs' elapsed time, new events), not every session on every request.
///
/// The bytes are exactly what encoding the whole array at once gives (compact, sorted keys): an array is its elements'
/// encodings joined by commas.
final class SessionListEncoder: Sendable {
    private let cache = Mutex<[String: (session: Session, json: [UInt8])]>([:])

    func response(_ sessions: [Session]) -> Response {
        guard let body = encode(sessions) else { return JSONResponse.encodingFailed() }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }

    /// The list as JSON; nil if a session cannot be encoded.
    func encode(_ sessions: [Session]) -> ByteBuffer? {
        let known = cache.withLock { $0 }
        var fresh: [String: (session: Session, json: [UInt8])] = [:]
        fresh.reserveCapacity(sessions.count)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(sessions.count * 400)
        buffer.writeInteger(UInt8(ascii: "["))
        let encoder = JSONResponse.encoder()
        for (index, session) in sessions.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            let json: [UInt8]
            if let cached = known[session.id], cached.session == session {
                json = cached.json
            } else {
                guard let encoded = try? encoder.encode(session) else { return nil }
                json = Array(encoded)
            }
            fresh[session.id] = (session, json)
            buffer.writeBytes(json)
        }
        buffer.writeInteger(UInt8(ascii: "]"))
        // Only sessions still listed stay cached.
        cache.withLock { $0 = fresh }
        return buffer
    }
}
