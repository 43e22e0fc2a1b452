import Foundation
import RalphAPI
import RalphFiles
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Host CPU, memory, disk, network and process figures from Linux `/proc`, as *rates between two samples*.
///
/// The first request takes two samples half a second apart; later ones compare with the previous sample. Results are
/// cached for a second so many clients polling cost one sample.
public final class HostSampler: Sendable {
    /// Raw counters at one instant.
    struct Sample: Sendable {
        var time: ContinuousClock.Instant
        var cpuTotal: UInt64
        var cpuIdle: UInt64
        var received: UInt64
        var sent: UInt64
        /// pid → (utime+stime ticks, name, resident bytes)
        var processes: [Int: (ticks: UInt64, name: String, resident: UInt64)]
        var memory: HostMetrics.Usage
        var disk: HostMetrics.Disk
        var load: [Double]
    }

    public struct Reading: Sendable {
        public var metrics: HostMetrics
        public var processes: [HostProcess]
    }

    public enum SampleError: Error, CustomStringConvertible {
        case unavailable(String)
        public var description: String {
            switch self {
            case .unavailable(let why): why
            }
        }
    }

    let diskPath: String
    let cacheFor: Duration
    private let state = Mutex<(last: Sample?, cached: (at: ContinuousClock.Instant, reading: Reading)?)>((nil, nil))

    public init(diskPath: String, cacheFor: Duration = .seconds(1)) {
        self.diskPath = diskPath
        self.cacheFor = cacheFor
    }

    /// Reads /proc on its own queue, off the async runtime.
    private let queue = DispatchQueue(label: "ralph-mobile.host-sampler")

    private func sampleOffRuntime() async -> Sample? {
        await withCheckedContinuation { continuation in
            let path = diskPath
            queue.async { continuation.resume(returning: Self.sample(diskPath: path)) }
        }
    }

    /// The current reading.
    public func reading() async throws -> Reading {
        let now = ContinuousClock.now
        if let cached = state.withLock({ $0.cached }), now - cached.at < cacheFor { return cached.reading }
        var previous = state.withLock { $0.last }
        if previous == nil || now - previous!.time > .seconds(60) {
            previous = await sampleOffRuntime()
            try await Task.sleep(for: .milliseconds(500))
        }
        guard let first = previous, let second = await sampleOffRuntime() else {
            throw SampleError.unavailable("host metrics need Linux /proc")
        }
        let reading = Self.reading(from: first, to: second)
        state.withLock { $0 = (second, (ContinuousClock.now, reading)) }
        return reading
    }

    static func reading(from a: Sample, to b: Sample) -> Reading {
        let interval = max(0.001, Double((b.time - a.time).components.seconds) + Double((b.time - a.time).components.attoseconds) / 1e18)
        let totalDelta = Double(b.cpuTotal &- a.cpuTotal)
        let idleDelta = Double(b.cpuIdle &- a.cpuIdle)
        let cpu = totalDelta > 0 ? max(0, min(100, (1 - idleDelta / totalDelta) * 100)) : 0
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        var processes: [HostProcess] = []
        for (pid, now) in b.processes {
            let before = a.processes[pid]?.ticks ?? now.ticks
            let percent = Double(now.ticks &- before) / ticksPerSecond / interval * 100
            processes.append(HostProcess(name: now.name, cpuPercent: round1(percent), memoryMb: round1(Double(now.resident) / 1_048_576), pid: pid))
        }
        processes.sort { ($0.cpuPercent, $0.memoryMb) > ($1.cpuPercent, $1.memoryMb) }
        let metrics = HostMetrics(
            cpu: HostMetrics.CPU(usagePercent: round1(cpu), cores: ProcessInfo.processInfo.activeProcessorCount, loadAverage: b.load),
            memory: b.memory, disk: b.disk,
            network: HostMetrics.Network(
                downloadMbps: round3(Double(b.received &- a.received) * 8 / 1e6 / interval), uploadMbps: round3(Double(b.sent &- a.sent) * 8 / 1e6 / interval)
            ),
            sampledAt: Timestamp.now(), intervalSecs: round3(interval)
        )
        return Reading(metrics: metrics, processes: Array(processes.prefix(10)))
    }

    /// Reads the counters (blocking). Nil where `/proc` does not exist.
    static func sample(diskPath: String) -> Sample? {
        guard let stat = FileSystem.readText("/proc/stat", limit: 1 << 20), let cpuLine = stat.split(separator: "\n").first,
            cpuLine.hasPrefix("cpu ")
        else { return nil }
        let fields = cpuLine.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard fields.count >= 4 else { return nil }
        let total = fields.prefix(8).reduce(0, &+)
        let idle = fields[3] &+ (fields.count > 4 ? fields[4] : 0)
        var received: UInt64 = 0
        var sent: UInt64 = 0
        for line in (FileSystem.readText("/proc/net/dev", limit: 1 << 20) ?? "").split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            if name == "lo" { continue }
            let values = line[line.index(after: colon)...].split(separator: " ").compactMap { UInt64($0) }
            if values.count >= 9 {
                received &+= values[0]
                sent &+= values[8]
            }
        }
        return Sample(
            time: .now, cpuTotal: total, cpuIdle: idle, received: received, sent: sent, processes: processTicks(), memory: memoryUsage(),
            disk: diskUsage(diskPath), load: loadAverage()
        )
    }

    static func processTicks() -> [Int: (ticks: UInt64, name: String, resident: UInt64)] {
        let page = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        var result: [Int: (ticks: UInt64, name: String, resident: UInt64)] = [:]
        for entry in FileSystem.list("/proc") ?? [] {
            guard let pid = Int(entry), let stat = FileSystem.readText("/proc/\(pid)/stat", limit: 8192),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // utime(14) stime(15) rss(24), counted from the state field (3).
            guard fields.count > 21, let user = UInt64(fields[11]), let system = UInt64(fields[12]), let rss = UInt64(fields[21]) else { continue }
            result[pid] = (user &+ system, name, rss &* page)
        }
        return result
    }

    static func memoryUsage() -> HostMetrics.Usage {
        var values: [String: Double] = [:]
        for line in (FileSystem.readText("/proc/meminfo", limit: 1 << 20) ?? "").split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kb = Double(parts[1]) { values[String(parts[0].dropLast())] = kb * 1024 }
        }
        let total = values["MemTotal"] ?? 0
        let used = total - (values["MemAvailable"] ?? values["MemFree"] ?? 0)
        return HostMetrics.Usage(usagePercent: total > 0 ? round1(used / total * 100) : 0, usedGb: round3(used / 1_073_741_824), totalGb: round3(total / 1_073_741_824))
    }

    static func diskUsage(_ path: String) -> HostMetrics.Disk {
        var fs = statvfs()
        guard statvfs(path, &fs) == 0 else { return HostMetrics.Disk(usagePercent: 0, usedGb: 0, totalGb: 0, path: path) }
        let unit = Double(fs.f_frsize)
        let total = Double(fs.f_blocks) * unit
        let used = total - Double(fs.f_bfree) * unit
        let available = Double(fs.f_bavail) * unit
        let percent = used + available > 0 ? used / (used + available) * 100 : 0
        return HostMetrics.Disk(usagePercent: round1(percent), usedGb: round3(used / 1_073_741_824), totalGb: round3(total / 1_073_741_824), path: path)
    }

    static func loadAverage() -> [Double] {
        let text = FileSystem.readText("/proc/loadavg", limit: 4096) ?? ""
        return text.split(separator: " ").prefix(3).compactMap { Double($0) }
    }

    static func round1(_ x: Double) -> Double { (x * 10).rounded() / 10 }
    static func round3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
}
