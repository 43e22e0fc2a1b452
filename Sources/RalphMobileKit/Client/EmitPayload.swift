import Foundation
import RalphAPI

/// The payload of an event a person types for `POST /api/sessions/{id}/emit`, checked before it is sent.
///
/// The rule every client shares (the web dashboard's emit form says the same):
/// - empty or blank text is no payload at all;
/// - text that starts with `{` or `[` (after leading whitespace) must be valid JSON, and is sent as that JSON;
/// - anything else is sent as the text, as typed.
///
/// The topic has its own rule, `Topic.problem(with:)` in RalphAPI, which the server applies too.
public enum EmitPayload {
    /// Why a payload cannot be sent.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// What is wrong, for the person who typed it.
        public let message: String
        /// The ``message``.
        public var description: String { message }
    }

    /// The JSON to send for `text` (nil for none), or the problem with it.
    public static func parse(_ text: String) -> Result<JSONValue?, Problem> {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return .success(nil) }
        guard trimmed.hasPrefix("{") || trimmed.hasPrefix("[") else { return .success(.string(text)) }
        do {
            return .success(try JSONParser.parse(trimmed))
        } catch {
            return .failure(Problem(message: "this looks like JSON but does not parse: \(error.description)"))
        }
    }
}
