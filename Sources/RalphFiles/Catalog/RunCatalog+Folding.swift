import Foundation
import Synchronization

/// Waiting for the background folds of the runs the first discovery listed from a fast scan.
extension RunCatalog {
    /// Whether run `id` is listed from its scan and still awaits its full fold (false for a run the catalog lacks).
    public func isFoldPending(id: String) -> Bool {
        shared.withLock { $0.runs[id]?.foldPending == true }
    }

    /// Waits until run `id`'s background fold is adopted (asking for it before the other runs), or `timeout` passes.
    /// True when the run no longer awaits its fold (also when it is gone: look it up again).
    public func waitUntilFolded(id: String, timeout: Duration) async -> Bool {
        guard isFoldPending(id: id) else { return true }
        backgroundFolds.prioritize(id)
        let ticket = shared.withLock { s -> Int in
            s.lastFoldWait += 1
            return s.lastFoldWait
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.foldAdopted(id: id, ticket: ticket) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.withdrawFoldWait(id: id, ticket: ticket)
            }
            await group.next()
            group.cancelAll()
            withdrawFoldWait(id: id, ticket: ticket)
            await group.waitForAll()
        }
        shared.withLock { _ = $0.withdrawnFoldWaits.remove(ticket) }
        return !isFoldPending(id: id)
    }

    /// Returns once the engine adopted the run's fold (or the run went, or the catalog stopped), or the wait with this
    /// ticket was withdrawn.
    private func foldAdopted(id: String, ticket: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = shared.withLock { s -> Bool in
                guard s.withdrawnFoldWaits.remove(ticket) == nil, !s.finished, s.runs[id]?.foldPending == true else { return false }
                s.foldWaiters[id, default: [:]][ticket] = continuation
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    /// Ends the wait with this ticket (resumed if it was registered, else never registered).
    private func withdrawFoldWait(id: String, ticket: Int) {
        let continuation = shared.withLock { s -> CheckedContinuation<Void, Never>? in
            if let waiting = s.foldWaiters[id]?.removeValue(forKey: ticket) {
                if s.foldWaiters[id]?.isEmpty == true { s.foldWaiters[id] = nil }
                return waiting
            }
            s.withdrawnFoldWaits.insert(ticket)
            return nil
        }
        continuation?.resume()
    }

    /// Lets the background folds start (see ``Configuration/holdsBackgroundFolds``).
    public func releaseBackgroundFolds() {
        backgroundFolds.release()
    }

    /// Posts a command from a thread that waits for nothing (a background fold); dropped once the catalog stopped.
    func postFromThread(_ command: CatalogCommand) {
        let accepted = shared.withLock { s -> Bool in
            guard !s.finished else { return false }
            s.mailbox.append(command)
            return true
        }
        if accepted { wake() }
    }
}
