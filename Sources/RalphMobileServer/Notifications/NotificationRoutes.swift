import Foundation
import Hummingbird
import RalphAPI

/// Devices, presence, settings, the delivery log, and the actions notifications carry.
///
/// - `GET /api/notifications` (viewer): the VAPID key and what each channel can do.
/// - `GET|POST /api/notifications/devices`, `PATCH|DELETE /api/notifications/devices/{id}`,
///   `POST /api/notifications/devices/{id}/test` (viewer; web push and APNs; ntfy and webhook registrations make the
///   server call a URL of the caller's choosing, so they need an operator): a key sees and changes its own devices,
///   an admin every device.
/// - `POST /api/notifications/presence` (viewer).
/// - `GET /api/notifications/deliveries` (admin): the delivery log.
/// - `POST /api/notifications/actions` (no key: the token is the credential).
struct NotificationRoutes {
    let notifier: Notifier
    let actions: NotificationActionHandler

    func register(on routes: Routes) {
        routes.viewer.get("/api/notifications") { _, _ in JSONResponse.make(notifier.settings) }
        routes.viewer.get("/api/notifications/devices") { _, context in
            let identity = try context.requireIdentity()
            let devices = try await notifier.store.devices(keyID: identity.role == .admin ? .none : .some(identity.keyID))
            return JSONResponse.make(NotificationDeviceList(devices: devices.map { $0.view() }))
        }
        routes.viewer.post("/api/notifications/devices") { request, context in
            let identity = try context.requireIdentity()
            let body = try await request.decode(as: RegisterDeviceRequest.self, context: context)
            if body.channel == .ntfy || body.channel == .webhook, !identity.role.includes(.operator) {
                throw APIError.forbidden(needs: .operator)
            }
            let generated = body.channel == .webhook && body.webhook?.secret == nil
            let registration = try DeviceRegistration.validated(body)
            let device = try await notifier.store.register(registration, keyID: identity.keyID, now: Timestamp.now())
            return JSONResponse.make(device.view(includeSecret: generated), status: .created)
        }
        routes.viewer.patch("/api/notifications/devices/{id}") { request, context in
            var device = try await ownDevice(context)
            let body = try await request.decode(as: UpdateDeviceRequest.self, context: context)
            var registration = device.registration
            if let name = body.name { registration.name = name }
            if let kinds = body.kinds { registration.kinds = kinds }
            if let privacy = body.privacy { registration.privacy = privacy }
            if body.clearQuietHours == true { registration.quietHours = nil }
            if let quiet = body.quietHours { registration.quietHours = quiet }
            device.registration = try DeviceRegistration.validated(registration)
            try await notifier.store.update(device)
            return JSONResponse.make(device.view())
        }
        routes.viewer.delete("/api/notifications/devices/{id}") { _, context in
            let device = try await ownDevice(context)
            try await notifier.store.remove(deviceID: device.id)
            return JSONResponse.make(["removed": device.view()])
        }
        routes.viewer.post("/api/notifications/devices/{id}/test") { _, context in
            let device = try await ownDevice(context)
            let delivery = try await notifier.sendTest(to: device)
            return JSONResponse.make(delivery)
        }
        routes.viewer.post("/api/notifications/presence") { request, context in
            let identity = try context.requireIdentity()
            let body = try await request.decode(as: PresenceReport.self, context: context)
            if let screen = body.screen, screen.count > 40 { throw APIError.invalidBody("screen is longer than 40 characters") }
            if let subject = body.subjectId, subject.count > 200 { throw APIError.invalidBody("subject_id is longer than 200 characters") }
            notifier.presence.report(body, keyID: identity.keyID)
            return Response(status: .noContent)
        }
        routes.admin.get("/api/notifications/deliveries") { request, _ in
            let query = request.uri.queryParameters
            var limit = 100
            if let text = query["limit"] {
                guard let value = Int(text), (1...1000).contains(value) else { throw APIError.invalidParameter("limit must be 1 to 1000") }
                limit = value
            }
            let entries = try await notifier.store.log(limit: limit, deviceID: query["device_id"].map(String.init))
            return JSONResponse.make(NotificationDeliveryList(deliveries: entries))
        }
        routes.open.post("/api/notifications/actions") { request, context in
            let body = try await request.decode(as: NotificationActionRequest.self, context: context)
            return JSONResponse.make(try await actions.perform(body))
        }
    }

    /// The device named in the path, if the caller may manage it (its own, or any for an admin); else 404, so that
    /// one key cannot learn which ids another key's devices have.
    private func ownDevice(_ context: AppRequestContext) async throws -> StoredDevice {
        let identity = try context.requireIdentity()
        let id = context.parameters.get("id") ?? ""
        guard let device = try await notifier.store.device(id: id), identity.role == .admin || device.keyID == identity.keyID else {
            throw APIError.notFound("no notification device '\(id.prefix(80))'")
        }
        return device
    }
}
