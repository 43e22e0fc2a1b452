/// Version of this implementation of the Ralph Mobile contract.
public enum RalphMobileVersion {
    /// Semantic version of the server, the SDK and the terminal client.
    public static let current = "0.1.0"
    /// Version of the wire contract (`protocol_version` in `/api/health`).
    public static let protocolVersion = 1
}
