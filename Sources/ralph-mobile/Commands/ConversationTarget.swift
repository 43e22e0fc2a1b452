import ArgumentParser
import Foundation
import RalphMobileKit

/// Arguments of the commands that act on one conversation (the conversation counterpart of ``SessionTarget``).
struct ConversationTarget: ParsableArguments {
    @OptionGroup var server: ServerOptions

    @Argument(help: "The conversation id.")
    var id: String

    /// Runs an action on the conversation and prints what it says.
    @MainActor
    func perform(_ action: (RalphClient) async throws -> String) async throws {
        try await withClient(server) { client in say(try await action(client)) }
    }
}
