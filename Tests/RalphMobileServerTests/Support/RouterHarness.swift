import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore

@testable import RalphMobileServer

/// The whole server in process, its requests answered by the router with no socket (HummingbirdTesting's `.router`):
/// for the request/response rules (auth, roles, cross-site, limits, validation), which need no connection and so can
/// run in parallel. Streams, processes and connection limits keep their real-socket tests.
enum RouterHarness {
    static func test<T: Sendable>(
        _ configure: (inout ServerConfiguration) -> Void = { _ in }, before: (TemporaryDirectory) throws -> Void = { _ in },
        _ body: @escaping @Sendable (any TestClientProtocol, RalphMobileServer) async throws -> T
    ) async throws -> T {
        let tmp = TemporaryDirectory()
        try before(tmp)
        let server = try RouterFixture.server(tmp, configure)
        let app = server.makeApplication()
        let result = try await app.test(.router) { client in try await body(client, server) }
        withExtendedLifetime(tmp) {}
        return result
    }
}

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }
}

extension TestClientProtocol {
    /// A request with `(name, value)` headers and a text body, with its `Content-Length` and (unless given)
    /// `Content-Type: application/json`, as ``HTTP/request(_:method:headers:body:)`` sends it.
    func send(_ method: HTTPRequest.Method, _ uri: String, headers: [(String, String)] = [], body: String? = nil) async throws -> TestResponse {
        var fields = HTTPFields()
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        if let body, fields[.contentLength] == nil { fields[.contentLength] = String(body.utf8.count) }
        if body != nil, fields[.contentType] == nil { fields[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: fields, body: body.map { ByteBuffer(string: $0) })
    }
}
