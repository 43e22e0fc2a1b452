import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The command line of ralph-mobile-bench (see `usage`).
struct Options {
    var server = ".build/release/ralph-mobile-server"
    var runs = 3
    var clientCounts = [1, 100, 1000]
    var events = 1000
    var warmupEvents = 20
    /// Shortest pause between two published events in the latency figures.
    var intervalMs = 5.0
    /// Deliveries per second offered in the latency figures (the pause grows with the client count, so latency is
    /// measured below saturation; saturation has its own figure).
    var latencyLoad = 50_000.0
    var chatChunks = 1000
    var chatIntervalMs = 5
    var saturationClients = 1000
    var saturationEvents = 1000
    var resumeEvents = 10_000
    var idleConnections = 2000
    var clientThreads = 2
    /// Figure 8: questions measured per run, questions sent (one at a time) before them, and the pause between two.
    /// 50 ms (the target) keeps the server well below saturation (each question is a question and a withdrawal:
    /// outbox transactions and two requests), so the figure is the latency of one, not of a queue. A question still
    /// undelivered when the next one is due goes out folded with it (counted from that message, and counted apart).
    var notifyEvents = 200
    var notifyWarmup = 5
    var notifyIntervalMs = 50.0
    var install = false
    /// Figure 9: a PostgreSQL database for two clustered servers (skipped without one), its clients and burst size.
    var database: String?
    var clusterClients = 100
    var clusterEvents = 5000
    var clusterOnly = false

    static let usage = """
        usage: ralph-mobile-bench [--server PATH] [--runs N] [--clients 1,100,1000] [--events N] [--interval-ms MS]
                                  [--latency-load DELIVERIES_PER_S] [--chat-chunks N] [--chat-interval-ms MS]
                                  [--saturation-clients N] [--saturation-events N] [--resume-events N]
                                  [--idle-connections N] [--client-threads N] [--notify-events N] [--notify-warmup N]
                                  [--notify-interval-ms MS] [--install]
                                  [--database postgres://… [--cluster-clients N] [--cluster-events N] [--cluster-only]]
        Prints one JSON line per figure: {"figure","value"(median),"unit","target","met","min","median","max","runs"}.
        --install: apt-get install nginx libnginx-mod-nchan if they are missing.
        --database: also measure figure 9, two servers sharing this (empty, scratch) PostgreSQL database;
        --cluster-only: figure 9 alone.
        """

    init(_ arguments: ArraySlice<String>) throws {
        var args = Array(arguments)
        func value(_ flag: String) throws -> String {
            guard !args.isEmpty else { throw BenchError("\(flag) needs a value") }
            return args.removeFirst()
        }
        func int(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let n = Int(text), n > 0 else { throw BenchError("\(flag) needs a positive integer, got \(text)") }
            return n
        }
        while !args.isEmpty {
            let flag = args.removeFirst()
            switch flag {
            case "--server": server = try value(flag)
            case "--runs": runs = try int(flag)
            case "--clients":
                clientCounts = try value(flag).split(separator: ",").map {
                    guard let n = Int($0), n > 0 else { throw BenchError("--clients takes positive integers") }
                    return n
                }
            case "--events": events = try int(flag)
            case "--warmup-events": warmupEvents = try int(flag)
            case "--interval-ms":
                guard let ms = Double(try value(flag)), ms >= 0 else { throw BenchError("--interval-ms needs a number") }
                intervalMs = ms
            case "--latency-load":
                guard let load = Double(try value(flag)), load > 0 else { throw BenchError("--latency-load needs a positive number") }
                latencyLoad = load
            case "--chat-chunks": chatChunks = try int(flag)
            case "--chat-interval-ms": chatIntervalMs = try int(flag)
            case "--saturation-clients": saturationClients = try int(flag)
            case "--saturation-events": saturationEvents = try int(flag)
            case "--resume-events": resumeEvents = try int(flag)
            case "--idle-connections": idleConnections = try int(flag)
            case "--client-threads": clientThreads = try int(flag)
            case "--notify-events": notifyEvents = try int(flag)
            case "--notify-warmup": notifyWarmup = try int(flag)
            case "--notify-interval-ms":
                guard let ms = Double(try value(flag)), ms > 0 else { throw BenchError("--notify-interval-ms needs a positive number") }
                notifyIntervalMs = ms
            case "--install": install = true
            case "--database": database = try value(flag)
            case "--cluster-clients": clusterClients = try int(flag)
            case "--cluster-events": clusterEvents = try int(flag)
            case "--cluster-only": clusterOnly = true
            case "-h", "--help":
                Swift.print(Options.usage)
                exit(0)
            default: throw BenchError("unknown option \(flag)")
            }
        }
        guard !clientCounts.isEmpty else { throw BenchError("--clients is empty") }
        if clusterOnly && database == nil { throw BenchError("--cluster-only needs --database") }
    }
}
