/// `GET /api/host/metrics`: rates computed from two samples taken apart in time (not a single reading).
public struct HostMetrics: Codable, Hashable, Sendable {
    public struct CPU: Codable, Hashable, Sendable {
        /// Busy share of all cores between the two samples, 0–100.
        public var usagePercent: Double
        public var cores: Int
        /// 1, 5 and 15 minute load averages.
        public var loadAverage: [Double]

        public init(usagePercent: Double, cores: Int, loadAverage: [Double]) {
            self.usagePercent = usagePercent
            self.cores = cores
            self.loadAverage = loadAverage
        }

        enum CodingKeys: String, CodingKey {
            case cores
            case usagePercent = "usage_percent"
            case loadAverage = "load_average"
        }
    }

    public struct Usage: Codable, Hashable, Sendable {
        public var usagePercent: Double
        public var usedGb: Double
        public var totalGb: Double

        public init(usagePercent: Double, usedGb: Double, totalGb: Double) {
            self.usagePercent = usagePercent
            self.usedGb = usedGb
            self.totalGb = totalGb
        }

        enum CodingKeys: String, CodingKey {
            case usagePercent = "usage_percent"
            case usedGb = "used_gb"
            case totalGb = "total_gb"
        }
    }

    public struct Disk: Codable, Hashable, Sendable {
        public var usagePercent: Double
        public var usedGb: Double
        public var totalGb: Double
        /// The directory whose filesystem was measured (the first workspace root).
        public var path: String

        public init(usagePercent: Double, usedGb: Double, totalGb: Double, path: String) {
            self.usagePercent = usagePercent
            self.usedGb = usedGb
            self.totalGb = totalGb
            self.path = path
        }

        enum CodingKeys: String, CodingKey {
            case path
            case usagePercent = "usage_percent"
            case usedGb = "used_gb"
            case totalGb = "total_gb"
        }
    }

    public struct Network: Codable, Hashable, Sendable {
        /// Megabits per second received / sent by all interfaces but loopback.
        public var downloadMbps: Double
        public var uploadMbps: Double

        public init(downloadMbps: Double, uploadMbps: Double) {
            self.downloadMbps = downloadMbps
            self.uploadMbps = uploadMbps
        }

        enum CodingKeys: String, CodingKey {
            case downloadMbps = "download_mbps"
            case uploadMbps = "upload_mbps"
        }
    }

    public var cpu: CPU
    public var memory: Usage
    public var disk: Disk
    public var network: Network
    public var sampledAt: String
    /// Seconds between the two samples the rates come from.
    public var intervalSecs: Double

    public init(cpu: CPU, memory: Usage, disk: Disk, network: Network, sampledAt: String, intervalSecs: Double) {
        self.cpu = cpu
        self.memory = memory
        self.disk = disk
        self.network = network
        self.sampledAt = sampledAt
        self.intervalSecs = intervalSecs
    }

    enum CodingKeys: String, CodingKey {
        case cpu, memory, disk, network
        case sampledAt = "sampled_at"
        case intervalSecs = "interval_secs"
    }
}
