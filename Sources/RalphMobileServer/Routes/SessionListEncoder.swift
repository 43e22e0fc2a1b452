import Foundation
import Hummingbird
import Logging
import NIOCore
import RalphAPI
import Synchronization

/// Encodes the session list, keeping each session's JSON while the session is unchanged: a list of a thousand
/// finished runs re-encodes only what moved (live runs' elapsed time, new events), not every session on every request.
///
/// The bytes are exactly what encoding the whole array at once gives (compact, sorted keys): an array is its elements'
/// encodings joined by commas. A session that cannot be encoded is never left out quietly: the list is a `500` that
/// names it, and the error is logged.
final class SessionListEncoder: Sendable {
    /// A session of the list could not be encoded.
    struct Failure: Error, CustomStringConvertible {
        let sessionID: String
        let reason: String
        var description: String { "session \(sessionID) could not be encoded: \(reason)" }
    }

    private let cache = Mutex<[String: (session: Session, json: [UInt8])]>([:])
    private let encodeOne: @Sendable (Session) throws -> [UInt8]

    /// `encodeOne` encodes one session (tests give one that fails).
    init(encodeOne: @escaping @Sendable (Session) throws -> [UInt8] = { Array(try JSONResponse.encoder().encode($0)) }) {
        self.encodeOne = encodeOne
    }

    func response(_ sessions: [Session], logger: Logger) -> Response {
        response(logger: logger) { () throws(Failure) in try encode(sessions) }
    }

    /// The list answered with the body `make` builds: a `500` that names the session that could not be encoded.
    func response(logger: Logger, _ make: () throws(Failure) -> ByteBuffer) -> Response {
        let body: ByteBuffer
        do {
            body = try make()
        } catch {
            logger.error("the session list cannot be answered: \(error)")
            return APIError.internalError(error.description).response()
        }
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }

    /// The list as JSON.
    func encode(_ sessions: [Session]) throws(Failure) -> ByteBuffer {
        let each = try encodeEach(sessions)
        var buffer = ByteBuffer()
        buffer.reserveCapacity(each.reduce(2) { $0 + $1.count + 1 })
        buffer.writeInteger(UInt8(ascii: "["))
        for (index, json) in each.enumerated() {
            if index > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            buffer.writeBytes(json)
        }
        buffer.writeInteger(UInt8(ascii: "]"))
        return buffer
    }

    /// One session's JSON (not cached).
    func encoded(_ session: Session) throws(Failure) -> [UInt8] {
        do {
            return try encodeOne(session)
        } catch {
            throw Failure(sessionID: session.id, reason: "\(error)")
        }
    }

    /// Each session's JSON, in order; the cache keeps only these sessions afterwards.
    func encodeEach(_ sessions: [Session]) throws(Failure) -> [[UInt8]] {
        let known = cache.withLock { $0 }
        var fresh: [String: (session: Session, json: [UInt8])] = [:]
        fresh.reserveCapacity(sessions.count)
        var each: [[UInt8]] = []
        each.reserveCapacity(sessions.count)
        for session in sessions {
            let json: [UInt8]
            if let cached = known[session.id], cached.session == session {
                json = cached.json
            } else {
                json = try encoded(session)
            }
            fresh[session.id] = (session, json)
            each.append(json)
        }
        // Only sessions still listed stay cached.
        cache.withLock { $0 = fresh }
        return each
    }
}
