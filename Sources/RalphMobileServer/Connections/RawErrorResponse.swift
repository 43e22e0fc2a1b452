import Foundation
import NIOCore
import RalphAPI

/// A complete HTTP/1.1 error answer as bytes, for the places below the HTTP codec that answer by themselves (a
/// refused connection, a head that never came), in the contract's `{"error": "<prefix>: <detail>"}` shape.
enum RawErrorResponse {
    static func make(status: Int, reason: String, error: ErrorResponse, headers: [(String, String)] = []) -> ByteBuffer {
        let body = (try? JSONResponse.encoder().encode(error)) ?? Data(#"{"error":"internal_error"}"#.utf8)
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\n\r\n"
        var buffer = ByteBuffer()
        buffer.writeString(head)
        buffer.writeBytes(body)
        return buffer
    }
}
