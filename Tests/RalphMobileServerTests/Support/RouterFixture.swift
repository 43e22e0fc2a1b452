import Foundation
import Logging

@testable import RalphMobileServer

/// A server built in process (no socket) over a temporary directory, for tests of its router.
enum RouterFixture {
    static func server(_ tmp: TemporaryDirectory, _ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> RalphMobileServer {
        var configuration = ServerConfiguration(dataDirectory: tmp.subdirectory("data"))
        configuration.port = 0
        configuration.workspaces = [tmp.subdirectory("root")]
        // As LiveServer configures it.
        configuration.heartbeatInterval = 15
        configuration.pollInterval = 0.5
        configuration.livenessInterval = 0.2
        configure(&configuration)
        var logger = Logger(label: "test.router")
        logger.logLevel = ProcessInfo.processInfo.environment["TEST_LOG"] == nil ? .critical : .debug
        return try RalphMobileServer(configuration: configuration, logger: logger)
    }
}
