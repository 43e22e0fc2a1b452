/// `PATCH /api/notifications/devices/{id}`: changes what a device is told. Absent fields stay as they are;
/// `clear_quiet_hours: true` removes the window.
public struct UpdateDeviceRequest: Codable, Hashable, Sendable {
    public var name: String?
    public var kinds: [NotificationKind]?
    public var privacy: NotificationPrivacy?
    public var quietHours: QuietHours?
    public var clearQuietHours: Bool?

    public init(
        name: String? = nil, kinds: [NotificationKind]? = nil, privacy: NotificationPrivacy? = nil, quietHours: QuietHours? = nil,
        clearQuietHours: Bool? = nil
    ) {
        self.name = name
        self.kinds = kinds
        self.privacy = privacy
        self.quietHours = quietHours
        self.clearQuietHours = clearQuietHours
    }

    enum CodingKeys: String, CodingKey {
        case name, kinds, privacy
        case quietHours = "quiet_hours"
        case clearQuietHours = "clear_quiet_hours"
    }
}
