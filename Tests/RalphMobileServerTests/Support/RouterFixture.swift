import Foundation
import Logging

@testable import RalphMobileServer

/// A server built in process (no socket) over a temporary directory, for tests of its router.
enum RouterFixture {
    static func server(_ tmp: TemporaryDirectory, _ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> RalphMobileServer {
        var configuration = ServerConfiguration.forTests(dataDirectory: tmp.subdirectory("data"), workspaces: [tmp.subdirectory("root")])
        configure(&configuration)
        return try RalphMobileServer(configuration: configuration, logger: .forTests("test.router"))
    }
}
