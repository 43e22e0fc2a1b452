import Foundation
import Logging
import RalphMobileServer

extension ServerConfiguration {
    /// The configuration every test server starts from, on a socket or in process: any free port, and heartbeat, poll
    /// and liveness intervals short enough for tests to see changes quickly.
    public static func forTests(dataDirectory: String, workspaces: [String]) -> ServerConfiguration {
        var configuration = ServerConfiguration(dataDirectory: dataDirectory)
        configuration.port = 0
        configuration.workspaces = workspaces
        configuration.heartbeatInterval = 15
        configuration.pollInterval = 0.5
        configuration.livenessInterval = 0.2
        return configuration
    }
}

extension Logger {
    /// A test server's logger: silent unless `TEST_LOG` is set, then everything down to debug.
    public static func forTests(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = ProcessInfo.processInfo.environment["TEST_LOG"] == nil ? .critical : .debug
        return logger
    }
}
