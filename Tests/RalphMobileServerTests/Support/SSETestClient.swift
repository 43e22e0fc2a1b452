import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RalphAPI
import Synchronization

/// One server-sent event as a client sees it.
struct SSEMessage: Sendable, Equatable {
    var id: String?
    var event: String
    var data: String
    /// Comment lines seen before this message (heartbeats).
    var comments: [String] = []

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
    /// The line number a session stream's id names (`17` of `17:3fa2c901`).
    var line: Int? { id.flatMap { SessionEventID($0)?.line } }
}

/// A streaming SSE connection for tests: reads the body incrementally and parses frames as they arrive.
final class SSETestClient: Sendable {
    enum Item: Sendable {
        case message(SSEMessage)
        case comment(String)
        case retry(Int)
        /// The server closed the stream.
        case closed
        case failed(String)
    }

    let status: Int
    let headers: HTTPHeaders
    private let received = Locked<[Item]>([])
    /// The reader waiting for an item (one at a time), woken when one arrives or its deadline passes.
    private let waiter = Locked<CheckedContinuation<Void, Never>?>(nil)
    private let task: Task<Void, Never>
    /// Raw bytes received (for byte-exact framing checks).
    let raw = Locked<[UInt8]>([])

    /// Our own clients say they understand `end` (`legacy: false`); `legacy: true` connects as the original iOS app did.
    static func connect(_ url: String, headers: [(String, String)] = [], legacy: Bool = false) async throws -> SSETestClient {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "text/event-stream")
        if !legacy { request.headers.add(name: "Ralph-Stream-End", value: "close") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        return SSETestClient(response: response)
    }

    /// A connection whose body is not read until ``resume()``: a client that has stopped reading. A plain socket with
    /// a small fixed receive buffer (no autotuning), so what the server writes backs up after a few kilobytes on any
    /// machine, whatever its TCP buffer settings.
    final class Paused: Sendable {
        private let socket: PausedSocket
        private let status: Int
        private let headers: HTTPHeaders

        static func connect(_ url: String) async throws -> Paused {
            let socket = try PausedSocket(url: url)
            // Blocking: on a thread of its own, never on the few threads the server under test runs on.
            let (status, headers) = try await offPool { try socket.readHead() }
            return Paused(socket: socket, status: status, headers: headers)
        }

        private init(socket: PausedSocket, status: Int, headers: HTTPHeaders) {
            self.socket = socket
            self.status = status
            self.headers = headers
        }

        func resume() -> SSETestClient {
            let socket = self.socket
            let body = AsyncThrowingStream<[UInt8], any Error> { continuation in
                let thread = Thread {
                    do {
                        while let bytes = try socket.readBody() { continuation.yield(bytes) }
                        continuation.finish()
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { _ in socket.shutdown() }
                thread.start()
            }
            return SSETestClient(status: status, headers: headers, body: body)
        }

        deinit { socket.close() }
    }

    fileprivate convenience init(response: HTTPClientResponse) {
        let body = AsyncThrowingStream<[UInt8], any Error> { continuation in
            let task = Task {
                do {
                    for try await chunk in response.body { continuation.yield(Array(chunk.readableBytesView)) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        self.init(status: Int(response.status.code), headers: response.headers, body: body)
    }

    fileprivate init(status: Int, headers: HTTPHeaders, body: AsyncThrowingStream<[UInt8], any Error>) {
        self.status = status
        self.headers = headers
        let received = self.received
        let raw = self.raw
        let waiter = self.waiter
        @Sendable func add(_ items: [Item]) {
            guard !items.isEmpty else { return }
            received.withLock { $0.append(contentsOf: items) }
            Self.wake(waiter)
        }
        task = Task {
            var parser = Parser()
            do {
                for try await bytes in body {
                    raw.withLock { $0.append(contentsOf: bytes) }
                    add(parser.feed(bytes))
                }
                add([.closed])
            } catch {
                add([Task.isCancelled ? .closed : .failed("\(error)")])
            }
        }
    }

    deinit { task.cancel() }

    /// Closes the connection from the client side.
    func cancel() { task.cancel() }

    static func wake(_ waiter: Locked<CheckedContinuation<Void, Never>?>) {
        let continuation = waiter.withLock { current -> CheckedContinuation<Void, Never>? in
            defer { current = nil }
            return current
        }
        continuation?.resume()
    }

    /// The next item, or a failure after `timeout` seconds. Sleeps until an item arrives (no polling).
    func next(timeout: Double = 5) async throws -> Item {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        let waiter = self.waiter
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            Self.wake(waiter)
        }
        defer { timer.cancel() }
        while true {
            if let item = received.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return item }
            if ContinuousClock.now >= deadline { throw TestFailure("timed out after \(timeout)s waiting for an SSE item") }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter.withLock { $0 = continuation }
                // An item may have arrived before the waiter was registered.
                if received.withLock({ !$0.isEmpty }) || ContinuousClock.now >= deadline { Self.wake(waiter) }
            }
        }
    }

    /// The next message, skipping comments and `retry:`; throws if the stream closes first.
    func nextMessage(timeout: Double = 5) async throws -> SSEMessage {
        while true {
            switch try await next(timeout: timeout) {
            case .message(let m): return m
            case .comment, .retry: continue
            case .closed: throw TestFailure("stream closed while waiting for a message")
            case .failed(let e): throw TestFailure("stream failed: \(e)")
            }
        }
    }

    /// Messages until the stream closes (or `timeout` per item).
    func messagesUntilClosed(timeout: Double = 5) async throws -> [SSEMessage] {
        var messages: [SSEMessage] = []
        while true {
            switch try await next(timeout: timeout) {
            case .message(let m): messages.append(m)
            case .comment, .retry: continue
            case .closed, .failed: return messages
            }
        }
    }

    /// `workflow` messages until `atMost` have arrived or the stream closes.
    func workflowUntilClosed(atMost: Int, timeout: Double = 5) async throws -> [SSEMessage] {
        var messages: [SSEMessage] = []
        while messages.count < atMost {
            switch try await next(timeout: timeout) {
            case .message(let m) where m.event == "workflow": messages.append(m)
            case .message, .comment, .retry: continue
            case .closed, .failed: return messages
            }
        }
        return messages
    }

    /// `workflow` messages, collected until `count` have arrived.
    func workflow(count: Int, timeout: Double = 5) async throws -> [SSEMessage] {
        var messages: [SSEMessage] = []
        while messages.count < count {
            let m = try await nextMessage(timeout: timeout)
            if m.event == "workflow" { messages.append(m) }
        }
        return messages
    }

    /// Incremental SSE parser (LF, CRLF or CR line endings; comments; multi-line data).
    struct Parser {
        var buffer: [UInt8] = []
        var id: String?
        var event = ""
        var data: [String] = []
        var comments: [String] = []
        var sawCR = false

        mutating func feed(_ bytes: [UInt8]) -> [Item] {
            var items: [Item] = []
            var start = 0
            for i in 0..<bytes.count where bytes[i] == 0x0A || bytes[i] == 0x0D {
                if sawCR && bytes[i] == 0x0A && i == start {
                    sawCR = false
                    start = i + 1
                    continue
                }
                buffer.append(contentsOf: bytes[start..<i])
                items.append(contentsOf: line(String(decoding: buffer, as: UTF8.self)))
                buffer.removeAll(keepingCapacity: true)
                sawCR = bytes[i] == 0x0D
                start = i + 1
            }
            if start < bytes.count {
                buffer.append(contentsOf: bytes[start...])
                sawCR = false
            }
            return items
        }

        mutating func line(_ line: String) -> [Item] {
            if line.isEmpty {
                defer {
                    id = nil
                    event = ""
                    data = []
                    comments = []
                }
                if data.isEmpty { return comments.map { .comment($0) } }
                return [.message(SSEMessage(id: id, event: event.isEmpty ? "message" : event, data: data.joined(separator: "\n"), comments: comments))]
            }
            if line.hasPrefix(":") {
                comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                return []
            }
            let field: Substring
            var value: Substring
            if let colon = line.firstIndex(of: ":") {
                field = line[..<colon]
                value = line[line.index(after: colon)...]
                if value.hasPrefix(" ") { value = value.dropFirst() }
            } else {
                field = line[...]
                value = ""
            }
            switch field {
            case "id": id = String(value)
            case "event": event = String(value)
            case "data": data.append(String(value))
            case "retry": return Int(value).map { [.retry($0)] } ?? []
            default: break
            }
            return []
        }
    }
}
