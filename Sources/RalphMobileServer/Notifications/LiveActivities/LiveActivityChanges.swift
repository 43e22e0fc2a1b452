import RalphAPI
import Synchronization

/// The runs and conversations that changed since the Live Activity updater last looked, and the signal that wakes it.
/// Told from the catalog's thread and from conversation workers: each touch is a set insert under a lock.
final class LiveActivityChanges: Sendable {
    struct Subject: Hashable, Sendable {
        var kind: LiveActivitySubject.Kind
        var id: String
    }

    private let changed = Mutex<Set<Subject>>([])
    let wake = WakeSignal()

    func touch(_ kind: LiveActivitySubject.Kind, _ id: String) {
        let inserted = changed.withLock { $0.insert(Subject(kind: kind, id: id)).inserted }
        if inserted { wake.signal() }
    }

    /// What changed since the last call.
    func take() -> Set<Subject> {
        changed.withLock { set in
            defer { set = [] }
            return set
        }
    }
}
