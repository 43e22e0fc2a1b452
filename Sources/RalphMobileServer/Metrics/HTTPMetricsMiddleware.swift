import Hummingbird

/// Counts every answered request by route pattern, method and status, and records the time until its response was
/// ready (``ServerMetrics/requestAnswered(route:method:status:duration:)``). Placed before the error middleware, so
/// errors are counted with the status they are answered with; a request no route matched counts as route `NotFound`.
struct HTTPMetricsMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        metrics.requestAnswered(
            route: context.endpointPath ?? "NotFound", method: request.method.rawValue, status: response.status.code, duration: ContinuousClock.now - start)
        return response
    }
}
