/// `GET /api/notifications/devices`: the devices of the caller's key (every device for an admin).
public struct NotificationDeviceList: Codable, Hashable, Sendable {
    public var devices: [NotificationDevice]

    public init(devices: [NotificationDevice]) {
        self.devices = devices
    }
}
