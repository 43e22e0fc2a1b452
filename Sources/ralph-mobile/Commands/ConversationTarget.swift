import ArgumentParser

/// Arguments of the commands that act on one conversation.
struct ConversationTarget: ServerTarget {
    @OptionGroup var server: ServerOptions
    @Argument(help: "The conversation id.") var id: String
}
