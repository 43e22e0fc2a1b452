/// `GET /api/host/processes`: the 10 busiest processes.
public struct HostProcessesResponse: Codable, Hashable, Sendable {
    public var processes: [HostProcess]
    public init(processes: [HostProcess]) { self.processes = processes }
}
