import Foundation
import Observation
import RalphAPI

/// Everything a session detail screen shows, kept live: the original RalphMobile app's rules, in one place every
/// client shares.
///
/// - ``isSessionActive`` is true when the server's `mode` is `live`, or when the session was paused from this client.
/// - An active session is streamed as soon as ``connect()`` is called, and so is one whose host is offline in a cluster
///   (`Session.isUnreachable`: its events so far come from the cluster); a finished one is not streamed at all: the
///   connection state is `disconnected` and the events already shown stay visible (a first look at a finished
///   session shows its recent events from the detail call).
/// - Pausing keeps the stream open.
/// - Events are kept newest first, capped at ``eventCap`` (the oldest are dropped); ``eventCount`` counts every event
///   received, each once (ids never repeat, even across reconnections).
/// - The connection state goes `connecting → connected → disconnected / reconnecting(n) / error`.
@MainActor
@Observable
public final class SessionMonitor {
    /// The run followed.
    public let sessionID: String
    /// The client it reads, streams and controls the run through.
    public let client: RalphClient

    /// The run as last read (status, detail or `state` frame); nil before ``connect()``.
    public private(set) var session: Session?
    /// The run's detail, kept current by the stream's `state` frames; nil until read.
    public private(set) var detail: SessionDetail?
    /// Newest first.
    public private(set) var events: [WorkflowEvent] = []
    /// Events received (each id once), not capped.
    public private(set) var eventCount = 0
    /// The state of the run's event stream.
    public private(set) var connection: ConnectionState = .disconnected
    /// Reconnection attempts since the last successful connection.
    public private(set) var reconnectAttempts = 0
    /// Set by ``pause()`` from this client, cleared by ``resume()``.
    public private(set) var pausedFromThisClient = false
    /// Why the last action or fetch failed.
    public private(set) var lastError: String?
    /// The `end` frame, once the run ended while watched.
    public private(set) var end: StreamEnd?
    /// The last `reset` frame: the run's file was replaced or rewritten since an event shown, so the events shown
    /// before it were dropped and the file's events follow from its first line.
    public private(set) var reset: StreamReset?
    /// The most events kept.
    public var eventCap = 1000
    /// The reconnect policy of the stream (tests shorten it).
    public var policy = ReconnectPolicy()

    @ObservationIgnored private var streamTask: Task<Void, Never>?
    /// The refresh started when the run ends; ``disconnect()`` cancels it.
    @ObservationIgnored let tasks = ModelTasks()
    /// State frames applied since the monitor was made (the detail arrives with the stream, not by polling).
    public private(set) var stateFrames = 0
    @ObservationIgnored private var lastEventID: Int = 0
    /// The `id:` of the last frame (`<line>:<check>`), sent back when the stream is opened again.
    @ObservationIgnored private var lastFrameID: String?
    /// Ids already received, to count each event once.
    @ObservationIgnored private var seenIDs = Set<Int>()

    /// A monitor with nothing read yet; call ``connect()``.
    public init(client: RalphClient, sessionID: String) {
        self.client = client
        self.sessionID = sessionID
    }

    /// Whether the session should be streamed.
    public var isSessionActive: Bool { session?.mode == .live || pausedFromThisClient }

    /// A run that ended while it was not watched (``disconnect()`` then ``connect()``, e.g. the app in the background):
    /// its stream is opened once more from the last event shown, so the events written meanwhile arrive, then `end`.
    var isCatchingUp: Bool { end == nil && (lastFrameID != nil || lastEventID > 0) && (session?.eventCount ?? 0) > eventCount }

    /// Whether a stream is open or being (re)opened.
    public var isStreaming: Bool { streamTask != nil }

    // MARK: - Connecting

    /// Fetches the session; streams it if it is active, else shows it as it is.
    public func connect() async {
        lastError = nil
        do {
            session = try await client.status(sessionID)
        } catch {
            connection = .error(error.description)
            lastError = error.description
            return
        }
        await refreshDetail()
        // A run whose host is offline (a cluster) is streamed too: the cluster keeps its events so far, and the ones its
        // host writes once it is back follow on the same stream (its detail cannot be read meanwhile).
        if isSessionActive || isCatchingUp || session?.isUnreachable == true {
            openStream()
        } else {
            closeStream()
            connection = .disconnected
            if events.isEmpty, let recent = detail?.recentEvents {
                for value in recent { if let event = WorkflowEvent(json: value) { receive(event) } }
            }
        }
    }

    /// Closes the stream (events stay visible) and cancels a refresh still under way.
    public func disconnect() {
        closeStream()
        tasks.cancelAll()
        connection = .disconnected
    }

    private func openStream() {
        guard streamTask == nil else { return }
        connection = .connecting
        // `state=1`: the server sends the session's detail as it changes (`state` frames), so it is not re-fetched.
        let stream = EventStream(client: client, path: "/api/sessions/\(RalphClient.component(sessionID))/events", query: [("state", "1")], lastEventID: lastFrameID ?? (lastEventID > 0 ? String(lastEventID) : nil), policy: policy)
        streamTask = Task { [weak self] in
            for await update in stream.updates() {
                guard let self else { return }
                self.apply(update)
            }
            // Closed by ``disconnect()``: a stream opened since then is not this one's to clear.
            guard !Task.isCancelled else { return }
            self?.streamEnded()
        }
    }

    private func closeStream() {
        streamTask?.cancel()
        streamTask = nil
    }

    private func streamEnded() {
        streamTask = nil
        if case .error = connection { return }
        connection = .disconnected
    }

    func apply(_ update: EventStream.Update) {
        switch update {
        case .state(let state):
            connection = state
            reconnectAttempts = state.reconnectAttempts(after: reconnectAttempts)
            if case .error(let message) = state { lastError = message }
        case .event(let frame):
            if frame.event == StreamEventName.reset {
                applyReset(try? WireJSON.decode(StreamReset.self, from: Data(frame.data.utf8)))
                return
            }
            if frame.event == StreamEventName.state {
                applyState(frame.data)
                return
            }
            guard frame.event == StreamEventName.workflow, let event = WorkflowEvent(data: frame.data) else { return }
            if let id = frame.id, !id.isEmpty { lastFrameID = id }
            receive(event)
        case .end(let data):
            end = try? WireJSON.decode(StreamEnd.self, from: Data(data.utf8))
            pausedFromThisClient = false
            // The run is over now, not when the refresh below answers.
            if let end { session?.mode = end.mode; session?.status = end.status }
            tasks.spawn { [weak self] in await self?.refreshStatus() }
        }
    }

    /// The events shown are history the run's file no longer has: they go, and ids start again.
    func applyReset(_ frame: StreamReset?) {
        reset = frame
        events = []
        seenIDs = []
        lastEventID = 0
        lastFrameID = nil
    }

    /// Adds an event (newest first), once per id, keeping at most ``eventCap``.
    func receive(_ event: WorkflowEvent) {
        guard seenIDs.insert(event.id).inserted else { return }
        eventCount += 1
        lastEventID = max(lastEventID, event.id)
        // Events arrive in id order; one that is older than the newest shown (history loaded later) goes in its place.
        if let first = events.first, event.id < first.id {
            let index = events.firstIndex { $0.id < event.id } ?? events.count
            events.insert(event, at: index)
        } else {
            events.insert(event, at: 0)
        }
        if events.count > eventCap { events.removeLast(events.count - eventCap) }
    }

    // MARK: - Detail

    /// Re-reads the session and its detail.
    public func refreshStatus() async {
        // A failed status read is not reported on its own: the detail read below asks the same server and says why.
        if let status = try? await client.status(sessionID), !Task.isCancelled { session = status }
        await refreshDetail()
    }

    /// A cancelled read (the monitor was disconnected meanwhile) changes nothing, its cancellation included.
    func refreshDetail() async {
        guard !Task.isCancelled else { return }
        do {
            let detail = try await client.detail(sessionID)
            guard !Task.isCancelled else { return }
            self.detail = detail
            adopt(detail.session)
        } catch {
            guard !Task.isCancelled else { return }
            lastError = error.description
        }
    }

    /// The run as a detail or a `state` frame says it. Those come from the run's own host and leave out its host (only
    /// the list and the status name it): the host known from those is kept, and it is reachable, since it answered.
    func adopt(_ fresh: Session) {
        var fresh = fresh
        if fresh.hostId == nil, let known = session, known.id == fresh.id, known.hostId != nil {
            fresh.host = known.host
            fresh.hostId = known.hostId
            fresh.reachable = true
        }
        session = fresh
    }

    /// A `state` frame: the session's detail as the server has it now, after the events it describes.
    func applyState(_ data: String) {
        do {
            let detail = try WireJSON.decode(SessionDetail.self, from: Data(data.utf8))
            self.detail = detail
            adopt(detail.session)
            stateFrames += 1
        } catch {
            lastError = "the server sent a session state this client cannot read: \(error)"
        }
    }

    // MARK: - Controls

    /// SIGSTOP on the server; the stream stays open and the session stays active here.
    public func pause() async throws(RalphClientError) {
        _ = try await perform { () async throws(RalphClientError) in try await self.client.pause(self.sessionID) }
        pausedFromThisClient = true
        await refreshStatus()
    }

    /// Resumes a paused (or hook-suspended) run, then reads it again. The server's refusal is thrown and kept in ``lastError``.
    public func resume() async throws(RalphClientError) {
        _ = try await perform { () async throws(RalphClientError) in try await self.client.resume(self.sessionID) }
        pausedFromThisClient = false
        await refreshStatus()
    }

    /// Stops the run: gracefully at the end of its iteration, or (`force`, or a second stop) by signal. Ask the user
    /// first.
    public func stop(force: Bool = false) async throws(RalphClientError) -> StopSessionResponse {
        let result = try await perform { () async throws(RalphClientError) in try await self.client.stop(self.sessionID, force: force) }
        pausedFromThisClient = false
        await refreshStatus()
        return result
    }

    /// Appends an event to the run (see ``RalphClient/emit(_:topic:payload:)``); a failure is thrown and kept in ``lastError``.
    public func emit(topic: String, payload: JSONValue?) async throws(RalphClientError) -> EmitResponse {
        try await perform { () async throws(RalphClientError) in try await self.client.emit(self.sessionID, topic: topic, payload: payload) }
    }

    /// Guidance for the next iteration, or with `urgent` a steer for the current one (see ``RalphClient/steer(_:message:urgent:)``).
    public func steer(_ message: String, urgent: Bool = false) async throws(RalphClientError) -> SteerResponse {
        try await perform { () async throws(RalphClientError) in try await self.client.steer(self.sessionID, message: message, urgent: urgent) }
    }

    private func perform<T>(_ action: () async throws(RalphClientError) -> T) async throws(RalphClientError) -> T {
        do {
            let result = try await action()
            lastError = nil
            return result
        } catch {
            lastError = error.description
            throw error
        }
    }

    // MARK: - Derived views (the 10 sections)

    /// The hat changes of ``detail`` (the latest 200); empty before it is read.
    public var hatFlow: [HatTransition] { detail?.hatFlow ?? [] }
    /// How many iterations each hat was at work, from ``detail``.
    public var hatUsage: [HatUsage] { detail?.hatUsage ?? [] }
    /// The latest backpressure evidence (tests, lint, typecheck) of ``detail``.
    public var backpressure: Backpressure? { detail?.backpressure }
    /// The iteration figures of ``detail``; nil before it is read.
    public var iterationStats: IterationStats? { detail?.iterationStats }
    /// The latest events carrying a `tool` field (at most 20, newest last), from ``detail``.
    public var recentToolCalls: [JSONValue] { detail?.recentToolCalls ?? [] }
    /// Tokens and cost summed over the run's events, from ``detail``.
    public var tokenTotals: TokenMetrics? { detail?.tokens }
    /// Total tokens per report, oldest first: the sparkline.
    public var tokenSparkline: [Int] { detail?.tokens?.samples.map { $0.inputTokens + $0.outputTokens } ?? [] }
    /// Seconds left at the average iteration pace, for a live run with a known maximum.
    public var estimatedSecondsRemaining: Double? { detail?.iterationStats.estimatedRemainingSecs }
    /// Hats with their theme colors and how often each was at work.
    public var hatsReference: [(hat: String, color: String, iterations: Int)] {
        hatUsage.map { ($0.hat, HatPalette.color(for: $0.hat), $0.iterations) }
    }

    // MARK: - Export

    /// The session as JSON: its detail and every event kept, oldest first.
    public func exportJSON() throws -> Data {
        var object: [(key: String, value: JSONValue)] = [("exported_at", .string(Timestamp.now())), ("session_id", .string(sessionID))]
        if let detail {
            let data = try WireJSON.encode(detail)
            object.append(("detail", (try? JSONParser.parse(Array(data))) ?? .null))
        }
        object.append(("events", .array(events.reversed().map { .object($0.fields) })))
        object.append(("event_count", .int(eventCount)))
        return Data(JSONWriter.bytes(.object(JSONObject(object))))
    }
}
