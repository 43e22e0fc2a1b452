import Foundation
import Observation
import RalphAPI
import RalphMobileKit

/// A notification the app received: the server's ``NotificationMessage`` (the APNs payload's `ralph` dictionary)
/// and what the app does with it.
public struct ReceivedNotification: Equatable, Sendable {
    public var message: NotificationMessage
    /// The screen a tap opens.
    public var route: NotificationRoute { NotificationRoute(path: message.path) }
    /// The buttons iOS shows (the server names the same category in `aps.category`).
    public var category: NotificationCategory? { NotificationCategory.of(message) }
    /// A message that says the thing was dealt with elsewhere: remove the delivered notifications with its ``tag``.
    public var withdraws: Bool { message.withdraw == true }
    /// Identifies the notification on the device (a later one with the same tag replaces or withdraws it).
    public var tag: String { message.tag }

    public init(message: NotificationMessage) {
        self.message = message
    }

    /// Reads the `ralph` dictionary of a notification's `userInfo` (the APNs payload).
    public init(userInfo: [AnyHashable: Any]) throws(NotificationPayloadError) {
        guard let ralph = userInfo["ralph"] else { throw .noRalphPayload }
        guard JSONSerialization.isValidJSONObject(ralph), let data = try? JSONSerialization.data(withJSONObject: ralph) else {
            throw .malformed("the ralph entry is not a JSON object")
        }
        do {
            message = try WireJSON.decode(NotificationMessage.self, from: data)
        } catch {
            throw .malformed("\(error)")
        }
    }
}

/// Why a notification's payload could not be read.
public enum NotificationPayloadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a Ralph Mobile notification (no `ralph` entry).
    case noRalphPayload
    case malformed(String)

    public var description: String {
        switch self {
        case .noRalphPayload: "not a Ralph Mobile notification (no ralph entry in its payload)"
        case .malformed(let why): "a Ralph Mobile notification this app cannot read: \(why)"
        }
    }
}

/// What came of a button pressed on a notification.
public enum NotificationActionOutcome: Equatable, Sendable {
    /// Done; the server's words (`Allowed: Bash`, `Answered (q-…)`).
    case done(String)
    /// Nothing changed, and why.
    case failed(String)
}

/// Turns a received notification into what the app does: the screen a tap opens, and a pressed button (Allow, Deny,
/// Answer with text) carried out through the API with the action's single-use token — never the device's key.
@MainActor
@Observable
public final class NotificationResponder {
    /// The screen to open, set by a tap on a notification; the shell navigates and clears it.
    public var pendingRoute: NotificationRoute?
    /// The outcome of the last button, for the app to show (or to post as a follow-up notification).
    public private(set) var lastOutcome: NotificationActionOutcome?

    @ObservationIgnored private let client: @MainActor () -> RalphClient?

    /// - Parameter client: the active server's client (the one the device registered with), read when a button is
    ///   pressed; when there is none, the action's own absolute URL is used.
    public init(client: @escaping @MainActor () -> RalphClient?) {
        self.client = client
    }

    public convenience init(app: AppModel) {
        self.init { [weak app] in app?.client }
    }

    /// A tap on the notification: remember the screen to open.
    @discardableResult
    public func open(_ notification: ReceivedNotification) -> NotificationRoute {
        let route = notification.route
        pendingRoute = route
        return route
    }

    /// Carries out the button `identifier` (`RALPH_ALLOW`, `RALPH_DENY`, `RALPH_ANSWER`) of `notification`, with the
    /// typed `text` of an answer.
    @discardableResult
    public func perform(_ identifier: String, text: String? = nil, on notification: ReceivedNotification) async -> NotificationActionOutcome {
        let outcome = await carryOut(identifier, text: text, on: notification)
        lastOutcome = outcome
        return outcome
    }

    private func carryOut(_ identifier: String, text: String?, on notification: ReceivedNotification) async -> NotificationActionOutcome {
        guard let button = NotificationCategory.button(identifier) else {
            return .failed("This app has no button '\(identifier)'.")
        }
        guard let action = notification.message.actions.first(where: { $0.action == button.action }) else {
            return .failed("This notification carries no \(button.title) action (a summary of several, or a key that may not decide). Open Ralph Mobile to decide.")
        }
        let typed = text?.trimmingCharacters(in: .whitespacesAndNewlines)
        if button.textInput, typed?.isEmpty != false {
            return .failed("Type an answer before sending it.")
        }
        guard let client = client() ?? Self.client(for: action.url) else {
            return .failed("Not connected to a server: open Ralph Mobile to decide.")
        }
        do {
            let response = try await client.performNotificationAction(token: action.token, text: button.textInput ? typed : nil)
            return .done(response.detail)
        } catch {
            return .failed(Self.words(error, button: button))
        }
    }

    /// A client for the origin of an absolute action URL.
    static func client(for url: String) -> RalphClient? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else { return nil }
        let port = components.port.map { ":\($0)" } ?? ""
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return try? RalphClient(baseURL: "\(scheme)://\(bracketed)\(port)")
    }

    /// What went wrong, so a person knows whether anything happened and what to do.
    static func words(_ error: RalphClientError, button: NotificationCategory.Button) -> String {
        switch error {
        case .actionTokenUsed: "Already done: a notification's button works once. Open Ralph Mobile to see where things stand."
        case .actionTokenExpired: "Too late: this action expired. Open Ralph Mobile to decide."
        case .actionTokenUnknown: "The server does not know this action (the phone was removed from its devices, or its data was reset). Open Ralph Mobile to decide."
        case .conflict(let why): "Already decided elsewhere: \(why)"
        case .forbidden(let why): "Not allowed: \(why)"
        case .notFound(_, let why): "Nothing is waiting any more: \(why)"
        case .invalidBody(let why): "The server refused the \(button.title.lowercased()): \(why)"
        default: "Could not \(button.title.lowercased()): \(error.description)"
        }
    }
}
