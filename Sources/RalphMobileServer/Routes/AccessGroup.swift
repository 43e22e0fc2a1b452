import HTTPTypes
import Hummingbird

/// The routes of one ``RouteAccess``: a router group that checks the role (``RequireRole``) before every route added
/// to it, and records each route with its access so the whole table can be listed and tested.
struct AccessGroup: RouterMethods {
    typealias Context = AppRequestContext
    let access: RouteAccess
    let group: RouterGroup<AppRequestContext>
    let ledger: RouteLedger

    init(_ access: RouteAccess, on router: Router<AppRequestContext>, ledger: RouteLedger) {
        self.access = access
        self.ledger = ledger
        let group = router.group()
        if case .role(let role) = access { group.add(middleware: RequireRole(role: role)) }
        if case .metrics = access { group.add(middleware: RequireMetricsAccess()) }
        self.group = group
    }

    @discardableResult func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
    where Responder.Context == Context {
        ledger.record(method: method, path: path, access: access)
        group.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        group.add(middleware: middleware)
        return self
    }
}
