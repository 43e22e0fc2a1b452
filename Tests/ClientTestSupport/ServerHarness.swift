import RalphMobileKit
import TestSupport

/// A client test harness built on a ``ClientTestServer``: what every harness offers the same way comes from here.
public protocol ServerHarness {
    var base: ClientTestServer { get }
}

extension ServerHarness {
    public var tmp: TemporaryDirectory { base.tmp }
    public var root: String { base.root }
    public var server: LiveServer { base.server }

    /// Short reconnect delays, so a reconnection takes well under a second.
    public static var fastPolicy: ReconnectPolicy { ClientTestServer.fastPolicy }

    public func stop() async { await base.stop() }
}
