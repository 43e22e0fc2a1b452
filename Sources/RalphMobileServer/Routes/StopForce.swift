import Foundation
import Hummingbird
import NIOCore
import RalphAPI

/// Whether `DELETE /api/sessions/{id}` asks for a forced stop: `?force=true|false|1|0`, or a JSON body
/// `{"force": true}` (``StopSessionRequest``). Anything else is `400` and stops nothing.
enum StopForce {
    static func read(_ request: Request, context: AppRequestContext) async throws -> Bool {
        var force = false
        if let text = request.uri.queryParameters["force"] {
            switch String(text) {
            case "true", "1": force = true
            case "false", "0": force = false
            default: throw APIError.invalidParameter("force must be true or false")
            }
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: 4096)
        } catch is NIOTooManyBytesError {
            throw APIError.payloadTooLarge("the body of a stop is at most 4096 bytes")
        }
        guard body.readableBytes > 0, !String(buffer: body).allSatisfy(\.isWhitespace) else { return force }
        let decoded: StopSessionRequest
        do {
            decoded = try WireJSON.decode(StopSessionRequest.self, from: Data(buffer: body))
        } catch let error as DecodingError {
            throw APIError.invalidBody(APIRequestDecoder.describe(error))
        } catch {
            throw APIError.invalidBody("the body is not valid JSON")
        }
        return force || decoded.force == true
    }
}
