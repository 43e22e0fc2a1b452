import Foundation
import FuzzRequests
import FuzzSupport
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import RalphAPI
import RalphMobileServer

/// libFuzzer's entry point. The first byte picks a request body type (``RequestBodies/types``), the rest is the body.
///
/// The body is decoded exactly as a route decodes it: `request.decode(as:context:)` with the server's own
/// ``AppRequestContext``, whose ``APIRequestDecoder`` turns every failure into `400 invalid_body: …`. It builds the
/// whole server (minutes), so CI runs `request-body` on the same corpus instead. Checked for every input: a body that
/// does not decode fails with a 400 ``APIError`` (never another error or status) whose response can be built; a body
/// that decodes, encoded again as a client encodes it, decodes to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestBodyServer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let (type, body) = RequestBodies.pick(inputBuffer(data, size)) else { return 0 }
    let context = Harness.shared.context
    runBlocking { await check(type, body: ByteBuffer(bytes: body), context: context) }
    return 0
}

/// Decodes `body` as a route would, then checks the outcome.
func check<T: Codable & Equatable & Sendable>(_ type: T.Type, body: ByteBuffer, context: AppRequestContext) async {
    let value: T
    do {
        value = try await request(body).decode(as: type, context: context)
    } catch let error as APIError {
        expect(error.status == .badRequest, "\(type): a bad body answered \(error.status), not 400: \(error)")
        expect(error.body.prefix == .invalidBody, "\(type): a bad body answered \(error.body.error)")
        _ = error.response()
        return
    } catch {
        expect(false, "\(type): a bad body threw \(error), not an APIError")
        return
    }
    guard let encoded = RequestBodies.reencode(value) else { return }
    let again: Result<T, any Error>
    do {
        again = .success(try await request(ByteBuffer(bytes: encoded)).decode(as: type, context: context))
    } catch {
        again = .failure(error)
    }
    RequestBodies.expectSame(value, again: again, encoded: encoded)
}

/// A `POST` carrying `body` as JSON, as the server receives it.
func request(_ body: ByteBuffer) -> Request {
    let head = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/api/fuzz", headerFields: [.contentType: "application/json"])
    return Request(head: head, body: RequestBody(buffer: body))
}

/// The server's request context, made once, from an embedded channel (no socket is involved).
struct Harness: Sendable {
    static let shared = Harness()

    let context: AppRequestContext

    private init() {
        let channel = EmbeddedChannel()
        context = AppRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: Logger(label: "fuzz")))
        // The context keeps the channel's event loop, not the channel; closing it frees the channel and its pipeline,
        // which point at each other (otherwise a leak the sanitizer reports).
        _ = try? channel.finish()
    }
}

/// Runs `operation` to its end from the synchronous fuzzer thread.
///
/// The task starts on this thread and, as decoding a body that is already in memory never suspends, also ends on
/// it: the task and what it captured are freed before the input's run ends. A task that ran on the global executor
/// could be freed a moment after, and LeakSanitizer, which does not see the runtime's tagged pointers to tasks,
/// would report what it captured as leaked.
func runBlocking(_ operation: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.immediate {
        await operation()
        done.signal()
    }
    done.wait()
}
