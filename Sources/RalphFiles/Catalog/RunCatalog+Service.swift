import ServiceLifecycle

/// The catalog as a ServiceLifecycle service, so a `ServiceGroup` owns its thread like any other service.
extension RunCatalog: Service {
    /// Starts the catalog's thread (subscribe observers first) and returns once it has stopped — on graceful shutdown
    /// or cancellation — with its index written. Use either this or ``start(observer:)``, not both.
    public func run() async throws {
        start()
        await withTaskCancellationOrGracefulShutdownHandler {
            await waitUntilFinished()
        } onCancelOrGracefulShutdown: {
            self.stop()
        }
    }
}
