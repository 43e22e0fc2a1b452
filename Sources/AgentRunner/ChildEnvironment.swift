/// The environment a child process of the server gets (ralph, a ralph command, the agent CLI, the demo loop): the
/// server's own, without its secrets. One function, so a new child cannot forget a secret and a new secret is
/// scrubbed from every child at once.
public enum ChildEnvironment {
    /// Variables no child may inherit: the server's API key (an agent told to run `env` would otherwise print it).
    public static let secrets: Set<String> = ["RALPH_MOBILE_API_KEY"]

    /// `environment` without ``secrets``.
    public static func scrubbed(_ environment: [String: String]) -> [String: String] {
        environment.filter { !secrets.contains($0.key) }
    }
}
