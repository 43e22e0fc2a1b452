/// One process of `GET /api/host/processes`.
public struct HostProcess: Codable, Hashable, Sendable {
    public var name: String
    /// Share of one core between the two samples (may exceed 100 on several cores, as `top` shows it).
    public var cpuPercent: Double
    /// Resident memory in MiB.
    public var memoryMb: Double
    public var pid: Int

    public init(name: String, cpuPercent: Double, memoryMb: Double, pid: Int) {
        self.name = name
        self.cpuPercent = cpuPercent
        self.memoryMb = memoryMb
        self.pid = pid
    }

    enum CodingKeys: String, CodingKey {
        case name, pid
        case cpuPercent = "cpu_percent"
        case memoryMb = "memory_mb"
    }
}
