import ArgumentParser
import RalphMobileKit

/// Arguments naming one thing on a server (``SessionTarget``, ``ConversationTarget``): the server options and an id.
protocol ServerTarget: ParsableArguments {
    var server: ServerOptions { get }
}

extension ServerTarget {
    /// Runs an action on the server and prints what it says.
    @MainActor
    func perform(_ action: (RalphClient) async throws -> String) async throws {
        try await withClient(server) { client in say(try await action(client)) }
    }
}
