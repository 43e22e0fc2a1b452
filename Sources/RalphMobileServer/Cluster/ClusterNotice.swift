/// What one server of a cluster tells the others through PostgreSQL's `NOTIFY` on the channel ``channel``. A notice
/// is a pointer, never the data: the rows are in the database (a notice is at most 8 000 bytes and never replayed, so a
/// server that missed some resynchronises from the rows).
enum ClusterNotice: Sendable, Hashable {
    /// A host started, stopped or changed its name.
    case host(String)
    /// A session's summary changed (or it was removed), on host `host`.
    case session(host: String, id: String)
    /// A session's events up to `line` are stored.
    case events(session: String, line: Int)
    /// A command waits for host `host`.
    case command(host: String, id: Int64)
    /// The command `id` has its result.
    case result(Int64)
    /// A conversation's events up to `seq` are stored (and its row may have changed).
    case chat(conversation: String, seq: Int)
    /// An approval changed state.
    case approval(String)
    /// API keys or web logins changed.
    case keys

    static let channel = "ralph_mobile"

    /// The notice as a `NOTIFY` payload: words separated by spaces.
    var payload: String {
        switch self {
        case .host(let id): "host \(id)"
        case .session(let host, let id): "session \(host) \(id)"
        case .events(let session, let line): "events \(session) \(line)"
        case .command(let host, let id): "command \(host) \(id)"
        case .result(let id): "result \(id)"
        case .chat(let conversation, let seq): "chat \(conversation) \(seq)"
        case .approval(let id): "approval \(id)"
        case .keys: "keys"
        }
    }

    /// The notice a payload carries, nil for one this version does not know.
    init?(payload: String) {
        let words = payload.split(separator: " ").map(String.init)
        switch (words.first, words.count) {
        case ("host", 2): self = .host(words[1])
        case ("session", 3): self = .session(host: words[1], id: words[2])
        case ("events", 3):
            guard let line = Int(words[2]) else { return nil }
            self = .events(session: words[1], line: line)
        case ("command", 3):
            guard let id = Int64(words[2]) else { return nil }
            self = .command(host: words[1], id: id)
        case ("result", 2):
            guard let id = Int64(words[1]) else { return nil }
            self = .result(id)
        case ("chat", 3):
            guard let seq = Int(words[2]) else { return nil }
            self = .chat(conversation: words[1], seq: seq)
        case ("approval", 2): self = .approval(words[1])
        case ("keys", 1): self = .keys
        default: return nil
        }
    }
}
