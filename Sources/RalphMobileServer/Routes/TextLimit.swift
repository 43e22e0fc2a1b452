import Foundation

/// Every limit on text a client sends, in one place: how long a steering message, a chat message, a task or a config
/// may be. Routes check text only through these, so two routes cannot disagree by accident; where two limits differ
/// (a chat message may be longer than a steering message), it is written here, with why.
///
/// Lengths are UTF-8 bytes unless ``unit`` says characters.
struct TextLimit: Sendable, Hashable {
    enum Unit: Sendable, Hashable {
        case bytes
        case characters
    }

    /// The longest text allowed, in ``unit``s.
    let maximum: Int
    var unit: Unit = .bytes
    /// How the limit reads in an error (`65536 bytes`, `1 MiB`).
    var spelled: String? = nil

    /// A steering message, an answer to ralph, guidance, a prompt (start or loop) and a task's description: text ralph
    /// reads into its next iteration's prompt, one event line each.
    static let steering = TextLimit(maximum: 64 * 1024)
    /// A chat message to the agent CLI (``ChatService``'s limit; its turn takes more than ralph's event line).
    static let chatMessage = TextLimit(maximum: 100_000)
    /// A task's title (a line in `tasks.jsonl`).
    static let taskTitle = TextLimit(maximum: 4096)
    /// A task's description.
    static let taskDescription = TextLimit(maximum: 64 * 1024, spelled: "64 KiB")
    /// An API key's name.
    static let keyName = TextLimit(maximum: 200, unit: .characters)
    /// A ralph config imported through the API.
    static let config = TextLimit(maximum: 1 << 20, spelled: "1 MiB")
    /// The workspace's memories file, written whole.
    static let memories = TextLimit(maximum: 4 << 20)

    /// The limit as it reads in an error.
    var description: String {
        spelled ?? "\(maximum) \(unit == .bytes ? "bytes" : "characters")"
    }

    /// Whether `value` fits.
    func allows(_ value: String) -> Bool {
        (unit == .bytes ? value.utf8.count : value.count) <= maximum
    }

    /// `400 invalid_body: <field> is longer than <limit>` unless `value` fits.
    func check(_ value: String, field: String, verb: String = "longer") throws(APIError) {
        if !allows(value) { throw .invalidBody("\(field) is \(verb) than \(description)") }
    }

    /// Free text a person typed (a message, an answer, a prompt): not blank, within the limit, no NUL.
    func freeText(_ value: String, field: String) throws(APIError) -> String {
        if value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw .invalidBody("\(field) cannot be empty") }
        try check(value, field: field)
        if value.unicodeScalars.contains("\u{0}") { throw .invalidBody("\(field) contains a NUL character") }
        return value
    }
}
