import Foundation
import Observation
import RalphAPI

/// Every pending approval of every conversation, kept live through the global stream — a badge and a batch screen.
@MainActor
@Observable
public final class ApprovalsModel {
    /// The client it reads and answers through.
    public let client: RalphClient
    /// Oldest first.
    public private(set) var pending: [Approval] = []
    /// The state of the global stream.
    public private(set) var connection: ConnectionState = .disconnected
    /// Why the last read or decision failed; cleared by the next one that succeeds.
    public private(set) var lastError: String?
    /// The reconnect policy of the global stream; takes effect at the next ``start()`` that opens it.
    public var policy = ReconnectPolicy()

    @ObservationIgnored private var streamTask: Task<Void, Never>?

    /// A model with nothing read yet; call ``start()``.
    public init(client: RalphClient) {
        self.client = client
    }

    /// Reads the pending approvals, then follows the global stream (`GET /api/events`) until ``stop()``:
    /// `approval.pending` and `approval.resolved` events keep ``pending`` current. Called again, it only reads again.
    public func start() async {
        await refresh()
        guard streamTask == nil else { return }
        let stream = EventStream(client: client, path: "/api/events", policy: policy)
        streamTask = stream.follow(by: self) { model, update in
            switch update {
            case .state(let state): model.connection = state
            case .event(let event): model.receive(event)
            case .end: break
            }
        }
    }

    /// Closes the stream; ``pending`` stays as it was.
    public func stop() {
        streamTask?.cancel()
        streamTask = nil
        connection = .disconnected
    }

    /// Reads the pending approvals again; a failure is kept in ``lastError``.
    public func refresh() async {
        do {
            pending = try await client.approvals(state: .pending)
            lastError = nil
        } catch {
            lastError = error.description
        }
    }

    func receive(_ event: SSEParser.Event) {
        let name = event.event
        guard name == ChatEventName.approvalPending || name == ChatEventName.approvalResolved,
            let approval = try? WireJSON.decode(Approval.self, from: Data(event.data.utf8))
        else { return }
        pending.removeAll { $0.id == approval.id }
        if name == ChatEventName.approvalPending { pending.append(approval) }
    }

    /// Answers one approval.
    @discardableResult
    public func decide(_ id: String, _ decision: ApprovalDecision, message: String? = nil) async -> Bool {
        do {
            _ = try await client.decide(id, decision, message: message)
            pending.removeAll { $0.id == id }
            lastError = nil
            return true
        } catch {
            lastError = error.description
            return false
        }
    }

    /// Answers several at once; returns the results (an approval decided elsewhere meanwhile reports why).
    public func decide(_ ids: [String], _ decision: ApprovalDecision, message: String? = nil) async -> [BatchApprovalResult] {
        do {
            let results = try await client.decide(ids, decision, message: message)
            let applied = Set(results.filter { $0.approval != nil }.map(\.id))
            pending.removeAll { applied.contains($0.id) }
            lastError = nil
            return results
        } catch {
            lastError = error.description
            return []
        }
    }
}
