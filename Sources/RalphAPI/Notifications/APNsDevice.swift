/// The iOS app's registration with APNs.
public struct APNsDevice: Codable, Hashable, Sendable {
    /// The device token the app got from `registerForRemoteNotifications`, hex.
    public var deviceToken: String
    /// `sandbox` for development builds, `production` for TestFlight and App Store builds.
    public var environment: APNsEnvironment

    public init(deviceToken: String, environment: APNsEnvironment) {
        self.deviceToken = deviceToken
        self.environment = environment
    }

    enum CodingKeys: String, CodingKey {
        case environment
        case deviceToken = "device_token"
    }
}

/// Which APNs host a token belongs to.
public enum APNsEnvironment: String, Codable, Hashable, Sendable {
    case sandbox
    case production
}
