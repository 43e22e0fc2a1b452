import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RalphAPI

/// A long-lived server-sent-events connection that resumes where it left off.
///
/// It carries out ``ReconnectMachine``'s decisions: connects with `Last-Event-ID`, reconnects with backoff (1 s, 2 s,
/// 4 s … 30 s, with jitter, reset only once a connection succeeds), treats a stream without events or heartbeats for
/// 45 s as dead, gives up on 401/403/404, and stops for good after an `end` frame.
public struct EventStream: Sendable {
    /// One thing that happened on the stream.
    public enum Update: Sendable, Equatable {
        /// The connection changed state.
        case state(ConnectionState)
        /// An event arrived (an `end` frame is ``end(_:)`` instead).
        case event(SSEParser.Event)
        /// The `end` frame's data: the stream is over and will not reconnect.
        case end(String)
    }

    /// The client whose server, key and timeout each connection uses.
    public let client: RalphClient
    /// The stream's path, such as `/api/events`.
    public let path: String
    /// Query items sent with every connection.
    public let query: [(String, String)]
    /// The id to resume after on the first connection (sent as `Last-Event-ID`); nil to start fresh.
    public var lastEventID: String?
    /// Backoff and dead-stream timeout.
    public var policy: ReconnectPolicy

    /// Describes a stream; nothing connects until ``updates()`` is called.
    public init(client: RalphClient, path: String, query: [(String, String)] = [], lastEventID: String? = nil, policy: ReconnectPolicy = ReconnectPolicy()) {
        self.client = client
        self.path = path
        self.query = query
        self.lastEventID = lastEventID
        self.policy = policy
    }

    /// Everything that happens on the stream, in order. Stop iterating (or cancel the task) to disconnect.
    public func updates() -> AsyncStream<Update> {
        AsyncStream { continuation in
            let task = Task { await run(continuation) }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// What the connection task tells the loop.
    enum Signal: Sendable {
        case input(ReconnectMachine.Input)
        case event(SSEParser.Event)
        case end(String)
    }

    func run(_ out: AsyncStream<Update>.Continuation) async {
        var machine = ReconnectMachine(policy: policy, lastEventID: lastEventID)
        let (signals, sink) = AsyncStream<Signal>.makeStream()
        var connection: Task<Void, Never>?
        var timer: Task<Void, Never>?
        defer {
            connection?.cancel()
            timer?.cancel()
            out.finish()
        }

        /// Carries out actions; true once the machine is finished.
        func perform(_ actions: [ReconnectMachine.Action]) -> Bool {
            for action in actions {
                switch action {
                case .connect(let id):
                    connection?.cancel()
                    connection = Task { await connect(lastEventID: id, sink: sink) }
                case .closeConnection:
                    connection?.cancel()
                    connection = nil
                case .wakeUp(let instant):
                    timer?.cancel()
                    timer = Task {
                        try? await Task.sleep(until: instant, clock: .continuous)
                        if !Task.isCancelled { sink.yield(.input(.tick)) }
                    }
                case .state(let state):
                    out.yield(.state(state))
                case .finish:
                    return true
                }
            }
            return false
        }

        var finished = perform(machine.handle(.start, now: .now))
        var iterator = signals.makeAsyncIterator()
        while !finished, let signal = await iterator.next() {
            switch signal {
            case .input(let input):
                finished = perform(machine.handle(input, now: .now))
            case .event(let event):
                guard machine.state == .connected else { continue }
                out.yield(.event(event))
                finished = perform(machine.handle(.received(eventID: event.id), now: .now))
            case .end(let data):
                guard machine.state == .connected else { continue }
                out.yield(.end(data))
                finished = perform(machine.handle(.ended, now: .now))
            }
        }
        if !finished { _ = perform(machine.handle(.stop, now: .now)) }
    }

    /// One connection: sends what it reads to the loop until it ends or is cancelled.
    func connect(lastEventID: String?, sink: AsyncStream<Signal>.Continuation) async {
        // Says that this client understands `end` (the server then closes the stream after it; a client that does
        // not say so is served like the original iOS app, whose stream is kept open).
        var headers = [("Accept", "text/event-stream"), ("Ralph-Stream-End", "close")]
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(client.request(.GET, path, query: query, headers: headers))
        } catch {
            if !Task.isCancelled { sink.yield(.input(.connectionFailed(error.description))) }
            return
        }
        let status = Int(response.status.code)
        guard status == 200 else {
            let data = (try? await response.body.collect(upTo: 1 << 20)).map { Data($0.readableBytesView) } ?? Data()
            let error = RalphClientError.from(status: status, body: try? WireJSON.decode(ErrorResponse.self, from: data))
            // A wrong key, a missing right or a session that does not exist will not get better by retrying.
            sink.yield(.input([401, 403, 404].contains(status) ? .fatal(error.description) : .connectionFailed(error.description)))
            return
        }
        sink.yield(.input(.connectionOpened))
        var parser = SSEParser()
        do {
            for try await chunk in response.body {
                for output in parser.feed(chunk.readableBytesView) {
                    switch output {
                    case .event(let event) where event.event == StreamEventName.end:
                        sink.yield(.end(event.data))
                        return
                    case .event(let event): sink.yield(.event(event))
                    case .comment: sink.yield(.input(.heartbeat))
                    case .retry(let ms): sink.yield(.input(.retryAdvice(.milliseconds(ms))))
                    }
                }
            }
            if !Task.isCancelled { sink.yield(.input(.streamClosed)) }
        } catch {
            if !Task.isCancelled { sink.yield(.input(.connectionFailed("the stream broke: \(RalphClient.describe(error))"))) }
        }
    }
}
