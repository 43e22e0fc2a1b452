import HTTPTypes
import Hummingbird
import RalphAPI
import Synchronization

/// Where route collections register their routes: one group per access, and nothing else — a route collection is
/// given this, not the router, so it cannot add a route without saying who may call it.
struct Routes {
    let open: AccessGroup
    let viewer: AccessGroup
    let `operator`: AccessGroup
    let admin: AccessGroup
    /// `GET /metrics` alone: an admin or the metrics key.
    let metrics: AccessGroup

    init(router: Router<AppRequestContext>, ledger: RouteLedger) {
        open = AccessGroup(.open, on: router, ledger: ledger)
        viewer = AccessGroup(.role(.viewer), on: router, ledger: ledger)
        `operator` = AccessGroup(.role(.operator), on: router, ledger: ledger)
        admin = AccessGroup(.role(.admin), on: router, ledger: ledger)
        metrics = AccessGroup(.metrics, on: router, ledger: ledger)
    }
}

/// Every route registered through ``Routes`` with its access, in registration order.
final class RouteLedger: Sendable {
    struct Entry: Sendable, Hashable {
        var method: String
        var path: String
        var access: RouteAccess
    }

    private let entries = Mutex<[Entry]>([])

    func record(method: HTTPRequest.Method, path: RouterPath, access: RouteAccess) {
        entries.withLock { $0.append(Entry(method: method.rawValue, path: path.description, access: access)) }
    }

    var all: [Entry] { entries.withLock { $0 } }

    /// The access of a route, nil when it was registered on the router directly (its handler checks the role).
    func access(method: String, path: String) -> RouteAccess? {
        entries.withLock { entries in entries.first { $0.method == method && $0.path == path }?.access }
    }
}
