import Foundation
import RalphAPI

/// The content of `.ralph/urgent-steer.json` (ralph 2.10, `urgent_steer.rs`): the steer messages not yet delivered and
/// when the first was written. A second steer before the agent's next emit joins the first, as ralph does.
public struct UrgentSteer: Codable, Hashable, Sendable {
    public var messages: [String]
    public var createdAt: String

    public init(messages: [String], createdAt: String) {
        self.messages = messages
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case messages
        case createdAt = "created_at"
    }

    /// `existing` (the file's bytes, if any) with `message` added; a file that cannot be read as a steer is replaced
    /// rather than kept, since ralph would not deliver it either.
    public static func adding(_ message: String, to existing: Data?, now: String = Timestamp.now()) -> UrgentSteer {
        guard let existing else { return UrgentSteer(messages: [message], createdAt: now) }
        do {
            var steer = try WireJSON.decode(UrgentSteer.self, from: existing)
            steer.messages.append(message)
            return steer
        } catch {
            return UrgentSteer(messages: [message], createdAt: now)
        }
    }
}
