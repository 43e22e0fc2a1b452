/// How the app was launched. The UI tests launch it with `-ui-testing` and the server's address in the environment:
/// it then starts from a clean slate (a fresh storage directory, keys in memory instead of the Keychain) with the
/// address filled in on the onboarding screen, so the test goes through the real onboarding and health check.
public struct AppLaunchOptions: Equatable, Sendable {
    /// The launch argument that turns UI-testing mode on.
    public static let uiTestingArgument = "-ui-testing"
    /// The environment variable with a server address to fill in (`http://127.0.0.1:8080` in CI).
    public static let serverURLVariable = "RALPH_MOBILE_SERVER_URL"
    /// The environment variable with an API key to fill in.
    public static let apiKeyVariable = "RALPH_MOBILE_API_KEY"

    public var isUITesting: Bool
    /// The address to fill in on the onboarding screen.
    public var serverURL: String?
    /// The key to fill in on the onboarding screen.
    public var apiKey: String?

    public init(arguments: [String], environment: [String: String]) {
        isUITesting = arguments.contains(Self.uiTestingArgument)
        serverURL = environment[Self.serverURLVariable].flatMap { $0.isEmpty ? nil : $0 }
        apiKey = environment[Self.apiKeyVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where the app keeps its state: `standard` normally; under UI tests a new directory below `temporary`, so every
    /// test run starts without saved servers.
    public func storageDirectory(standard: String, temporary: String, runID: String) -> String {
        isUITesting ? temporary + "/ralph-mobile-ui-tests/" + runID : standard
    }

    /// Whether keys stay in memory (UI tests) rather than in the Keychain.
    public var keepsKeysInMemory: Bool { isUITesting }
}
