import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The one HTTP client of the notification senders, and a POST that reads the (short) answer within a deadline.
struct PushHTTP: Sendable {
    let client: HTTPClient
    let timeout: TimeAmount

    /// A client that does not retry a refused connection until the deadline, so a receiver that is down is one
    /// failed attempt, retried later by the dispatcher with backoff.
    static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    init(client: HTTPClient = PushHTTP.shared, timeout: TimeAmount = .seconds(10)) {
        self.client = client
        self.timeout = timeout
    }

    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: String
    }

    /// POSTs `body` to `url`; the answer, or the failure in words.
    func post(_ url: String, headers: [(String, String)], body: [UInt8]) async -> Result<Answer, PushHTTPError> {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(body)
        do {
            let response = try await client.execute(request, deadline: .now() + timeout)
            let collected = try await response.body.collect(upTo: 16 * 1024)
            return .success(Answer(status: Int(response.status.code), headers: response.headers, body: String(buffer: collected)))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return .failure(PushHTTPError(description: "no answer within \(timeout.nanoseconds / 1_000_000_000) s"))
        } catch {
            return .failure(PushHTTPError(description: "\(url.prefix(200)): \(error)"))
        }
    }

    /// The outcome of a POST with the usual status meanings.
    func deliver(_ url: String, headers: [(String, String)], body: [UInt8]) async -> DeliveryOutcome {
        switch await post(url, headers: headers, body: body) {
        case .success(let answer):
            return .fromHTTP(status: answer.status, body: answer.body, retryAfter: answer.headers.first(name: "retry-after"))
        case .failure(let error):
            return .retry(status: nil, detail: error.description, after: nil)
        }
    }
}

struct PushHTTPError: Error, CustomStringConvertible {
    var description: String
}
