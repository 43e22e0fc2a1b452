import Hummingbird

/// Routes each request in a child task of its own, which ends once the response is made; the response's body is then
/// written by the connection's task, as usual.
///
/// A Swift task keeps the memory its deepest moment needed until the task ends: its allocator grows by slabs and never
/// gives one back. The connection's task lives as long as the connection, and routing is its deepest moment — the
/// middlewares and the handler each hold the request and its context in their frames (about 25 KB for a session's
/// event stream, measured with heaptrack). Done in a child task, that depth is freed with the child when the response
/// is ready, and what the connection keeps while an event stream idles, or between the requests of a kept-alive
/// connection, is only the shallow part: Hummingbird's connection loop and the body being written. The cost is one
/// task per request (a few microseconds).
///
/// Task-local values (the logger, graceful shutdown), cancellation and priority are inherited by the child.
struct RoutingTaskMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await withoutActuallyEscaping(next) { next in
            // The closure escapes into the child task only for as long as this call waits for it.
            let route = RoutingStep(next: next)
            return try await withThrowingTaskGroup(of: Response.self) { group in
                group.addTask { try await route.next(request, context) }
                // One child: its answer, or its error.
                return try await group.next()!
            }
        }
    }
}

/// The rest of the middleware chain, handed to the routing task.
private struct RoutingStep: @unchecked Sendable {
    // @unchecked: `next` is Hummingbird's continuation of the chain for this one request; it is called once, by the
    // child task, while the middleware that received it waits for that task (it never outlives the call).
    let next: (Request, AppRequestContext) async throws -> Response
}
