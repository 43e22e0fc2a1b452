import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// `LISTEN` on one channel of a PostgreSQL database, kept alive: one connection of its own, checked every
/// `pingInterval` with a `SELECT 1` that must answer within `pingTimeout` (a silent network or a restarted server is
/// noticed within seconds, not when TCP gives up), reconnected with backoff after any failure.
///
/// Notifications are never replayed by PostgreSQL: whoever uses this resynchronises from the database after every
/// (re)connection — ``Event/connected`` says when.
public final class PostgresListener: Sendable {
    public enum Event: Sendable, Equatable {
        /// Listening (again): anything sent while not listening was missed.
        case connected
        /// The connection was lost; reconnecting.
        case disconnected(String)
        case notification(String)
    }

    public let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    public init(database: PostgresDatabase, channel: String, pingInterval: Duration = .seconds(2), pingTimeout: Duration = .seconds(3), logger: Logger) {
        (events, continuation) = AsyncStream<Event>.makeStream()
        let continuation = continuation
        let running = Task {
            var backoff = Duration.milliseconds(200)
            while !Task.isCancelled {
                do {
                    let connection = try await database.connect()
                    backoff = .milliseconds(200)
                    let reason = await Self.listen(
                        connection, channel: channel, pingInterval: pingInterval, pingTimeout: pingTimeout, logger: logger, to: continuation)
                    try? await connection.close()
                    if Task.isCancelled { break }
                    continuation.yield(.disconnected(reason))
                    logger.warning("cluster: lost the database listener (\(reason)); reconnecting")
                } catch {
                    if Task.isCancelled { break }
                    logger.warning("cluster: cannot listen to the database (\(error)); retrying in \(backoff)")
                    try? await Task.sleep(for: backoff)
                    backoff = min(backoff * 2, .seconds(5))
                }
            }
            continuation.finish()
        }
        task.withLock { $0 = running }
    }

    /// Listens until the connection fails or the ping goes unanswered; why it stopped.
    ///
    /// The listening runs in a task of its own that is cancelled but never waited for: once its connection is gone,
    /// postgres-nio's notification sequence does not always end, and waiting for it would stop the reconnecting.
    private static func listen(
        _ connection: PostgresConnection, channel: String, pingInterval: Duration, pingTimeout: Duration, logger: Logger,
        to continuation: AsyncStream<Event>.Continuation
    ) async -> String {
        let (stops, stop) = AsyncStream<String>.makeStream()
        let listening = Task {
            do {
                try await connection.listen(on: channel) { notifications in
                    continuation.yield(.connected)
                    for try await notification in notifications { continuation.yield(.notification(notification.payload)) }
                }
                stop.yield("the notifications ended")
            } catch let error as PSQLError {
                stop.yield(PostgresDatabase.words(error))
            } catch {
                stop.yield("\(error)")
            }
        }
        let pinging = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: pingInterval)
                if Task.isCancelled { break }
                let answered = await withTaskGroup(of: Bool.self) { ping in
                    ping.addTask { (try? await connection.query("SELECT 1", logger: logger).collect()) != nil }
                    ping.addTask {
                        try? await Task.sleep(for: pingTimeout)
                        if Task.isCancelled { return true }
                        // Unanswered: closing the connection ends the query (and the listening) at once.
                        try? await connection.close()
                        return false
                    }
                    let first = await ping.next() ?? false
                    ping.cancelAll()
                    return first
                }
                if !answered {
                    stop.yield("the database did not answer a ping within \(pingTimeout)")
                    return
                }
            }
            stop.yield("stopped")
        }
        let reason = await withTaskCancellationHandler {
            var iterator = stops.makeAsyncIterator()
            return await iterator.next() ?? "stopped"
        } onCancel: {
            stop.yield("stopped")
        }
        pinging.cancel()
        listening.cancel()
        // Closing ends whatever still runs on the connection (an unanswered ping among them).
        try? await connection.close()
        stop.finish()
        return reason
    }

    /// Stops listening and closes the connection.
    public func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
    }
}
