extension RalphLayout {
    /// `.ralph/urgent-steer.json`: ralph 2.10's steer for the current iteration (written by its RPC `steer`; the agent's
    /// next `ralph emit` is refused once with its text). Not a documented external interface: the server writes it for
    /// a discovered run only with `--experimental-urgent-steer`.
    public var urgentSteer: String { stateDirectory + "/urgent-steer.json" }
}
