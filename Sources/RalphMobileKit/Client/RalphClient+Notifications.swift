import Foundation
import RalphAPI

/// Notifications (`issues show 20`): what the server can deliver, the devices of this key, presence, the actions a
/// notification carries, and the delivery log.
///
/// Registering an ntfy topic or a webhook makes the server call a URL of the caller's choosing, so it needs an operator
/// key (``RalphClientError/forbidden(_:)`` otherwise); the iOS app's APNs registration and a browser's Web Push
/// subscription need a viewer key. A key sees and changes its own devices; an admin every device.
extension RalphClient {
    /// `GET /api/notifications`: the VAPID key and, for each channel, whether it can deliver and why not (an `apns`
    /// channel without credentials says so here).
    public func notificationSettings() async throws(RalphClientError) -> NotificationSettings {
        try await get("/api/notifications")
    }

    /// `GET /api/notifications/devices`: this key's devices (every device for an admin).
    public func notificationDevices() async throws(RalphClientError) -> [NotificationDevice] {
        try await get("/api/notifications/devices", as: NotificationDeviceList.self).devices
    }

    /// `POST /api/notifications/devices`: registers a device, or replaces the registration with the same target (an
    /// app that registers its token again does not appear twice). A webhook registered without a secret comes back with
    /// the secret the server generated in `NotificationDevice.webhookSecret` — the only time it is shown.
    public func registerDevice(_ request: RegisterDeviceRequest) async throws(RalphClientError) -> NotificationDevice {
        try await send(.POST, "/api/notifications/devices", json: request)
    }

    /// `PATCH /api/notifications/devices/{id}`: changes the name, kinds, privacy or quiet hours (absent fields stay).
    public func updateDevice(_ id: String, _ request: UpdateDeviceRequest) async throws(RalphClientError) -> NotificationDevice {
        try await send(.PATCH, Self.devicePath(id), json: request)
    }

    /// `DELETE /api/notifications/devices/{id}`: the device is told nothing more; returns it as it was.
    @discardableResult
    public func removeDevice(_ id: String) async throws(RalphClientError) -> NotificationDevice {
        try await send(.DELETE, Self.devicePath(id), as: RemovedDevice.self).removed
    }

    /// `POST /api/notifications/devices/{id}/test`: sends a test notification now and says what happened —
    /// `delivered`, `failed` with the receiver's answer, or `expired` (the subscription is gone and the device removed).
    public func testDevice(_ id: String) async throws(RalphClientError) -> NotificationDelivery {
        try await send(.POST, Self.devicePath(id) + "/test")
    }

    /// `POST /api/notifications/presence`: this client is in the foreground showing `screen` (or left it:
    /// `foreground: false`). Send again at least every `PresenceReport.refreshSeconds`; ``PresenceReporter`` keeps
    /// that rule.
    public func reportPresence(_ report: PresenceReport) async throws(RalphClientError) {
        let body: Data
        do {
            body = try WireJSON.encode(report)
        } catch {
            throw .invalidBody("cannot encode the presence report: \(error)")
        }
        _ = try await data(.POST, "/api/notifications/presence", body: body)
    }

    /// `POST /api/notifications/actions`: carries out a notification's button with its single-use token (and the typed
    /// text of an answer). A used, expired or unknown token is ``RalphClientError/actionTokenUsed(_:)``,
    /// ``RalphClientError/actionTokenExpired(_:)`` or ``RalphClientError/actionTokenUnknown(_:)``, and changes nothing.
    ///
    /// Sent without the API key first: the token is the credential. A server that nonetheless asks for a key on this
    /// route (401 — the request never reached the token, so it is still unused) is asked again with this client's key,
    /// when it has one.
    public func performNotificationAction(token: String, text: String? = nil) async throws(RalphClientError) -> NotificationActionResponse {
        var keyless = try RalphClient(baseURL: baseURL, apiKey: nil, http: http)
        keyless.timeout = timeout
        let request = NotificationActionRequest(token: token, text: text)
        do {
            return try await keyless.send(.POST, "/api/notifications/actions", json: request)
        } catch .unauthorized where apiKey != nil {
            return try await send(.POST, "/api/notifications/actions", json: request)
        }
    }

    /// `GET /api/notifications/deliveries` (admin): the delivery log, newest first, at most `limit` (1 to 1000)
    /// entries, of one device when `deviceID` is given.
    public func notificationDeliveries(limit: Int? = nil, deviceID: String? = nil) async throws(RalphClientError) -> [NotificationDelivery] {
        var query: [(String, String)] = []
        if let limit { query.append(("limit", String(limit))) }
        if let deviceID { query.append(("device_id", deviceID)) }
        return try await get("/api/notifications/deliveries", query: query, as: NotificationDeliveryList.self).deliveries
    }

    static func devicePath(_ id: String) -> String { "/api/notifications/devices/\(component(id))" }

    /// The body of `DELETE /api/notifications/devices/{id}`.
    struct RemovedDevice: Decodable {
        var removed: NotificationDevice
    }
}
