import Foundation
import Logging
import RalphAPI
import SQLStore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// This server as a host — its stable id and name — and, in a cluster, every host's heartbeat.
///
/// A host heartbeats every second into `hosts` with the database's clock; it is online while its last heartbeat is
/// younger than the timeout (and it did not say it stopped). The table is read again at each heartbeat, so a host that
/// stopped heartbeating shows offline everywhere within the timeout, and observers hear of each change.
final class HostRegistry: Sendable {
    struct Host: Sendable, Hashable {
        var id: String
        var name: String
        var version: String
        var online: Bool
        var lastHeartbeat: Double
    }

    let id: String
    let name: String
    /// The shared database of a cluster; nil for a server on its own.
    let database: (any SQLDatabase)?
    let timeout: Double
    private let hosts: Mutex<[String: Host]>
    private let observers = Mutex<[@Sendable ([String]) -> Void]>([])

    init(id: String, name: String, database: (any SQLDatabase)?, timeout: Double) {
        self.id = id
        self.name = name
        self.database = database
        self.timeout = timeout
        hosts = Mutex([id: Host(id: id, name: name, version: RalphMobileVersion.current, online: true, lastHeartbeat: Date().timeIntervalSince1970)])
    }

    var clustered: Bool { database != nil }

    /// The host id kept in `<data-dir>/host-id` (12 hex characters, made on first start, mode 0600).
    static func identity(dataDirectory: String) throws(StartupError) -> String {
        let path = dataDirectory + "/host-id"
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard id.count >= 8, id.allSatisfy({ $0.isHexDigit }) else { throw StartupError("\(path) holds '\(id.prefix(40))', not a host id: remove it to make a new one") }
            return id.lowercased()
        }
        let id = (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        guard FileManager.default.createFile(atPath: path, contents: Data((id + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw StartupError("cannot write the host id to \(path)")
        }
        return id
    }

    /// The machine's name: the default `--host-name`.
    static var machineName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }

    /// Tells `observer` the ids of hosts whose online state or name changed.
    func observe(_ observer: @escaping @Sendable ([String]) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    // MARK: - Reading

    func host(_ id: String) -> Host? { hosts.withLock { $0[id] } }
    func isOnline(_ id: String) -> Bool { hosts.withLock { $0[id]?.online ?? false } }

    /// The host `text` names: its id, or its name ignoring case; nil when none does.
    func resolve(_ text: String) -> Host? {
        let all = hosts.withLock { Array($0.values) }
        return all.first { $0.id == text } ?? all.first { $0.name.lowercased() == text.lowercased() }
    }

    /// The request's `host` (nil: this server) as a host id, or a `400` that lists the hosts there are.
    func resolveRequested(_ text: String?) throws(APIError) -> String {
        guard let text, !text.isEmpty else { return id }
        if let host = resolve(text) { return host.id }
        let names = all().map(\.name).joined(separator: ", ")
        throw .invalidBody(clustered ? "no host '\(text.prefix(80))' in the cluster (hosts: \(names))" : "this server is host \(name), not '\(text.prefix(80))' (it is not part of a cluster)")
    }

    /// Every host, this one first, then by name.
    func all() -> [HostInfo] {
        let all = hosts.withLock { Array($0.values) }
        return all.sorted { ($0.id == id ? 0 : 1, $0.name, $0.id) < ($1.id == id ? 0 : 1, $1.name, $1.id) }.map { host in
            HostInfo(
                id: host.id, name: host.name, version: host.version, online: host.online,
                lastHeartbeatAt: Timestamp.format(Date(timeIntervalSince1970: host.lastHeartbeat)), isSelf: host.id == id)
        }
    }

    // MARK: - Heartbeat

    /// Says this host started (or is alive), and reads every host's state.
    func heartbeat(starting: Bool = false) async throws {
        guard let database else { return }
        let now = "EXTRACT(EPOCH FROM clock_timestamp())::double precision"
        try await database.write { db in
            if starting {
                try await db.execute(
                    """
                    INSERT INTO hosts (id, name, version, started_at, heartbeat_at, stopped) VALUES (?, ?, ?, \(now), \(now), 0)
                    ON CONFLICT (id) DO UPDATE SET name = excluded.name, version = excluded.version, started_at = excluded.started_at,
                        heartbeat_at = excluded.heartbeat_at, stopped = 0
                    """, id, name, RalphMobileVersion.current)
                try await db.execute("SELECT pg_notify(?, ?)", ClusterNotice.channel, ClusterNotice.host(id).payload)
            } else {
                try await db.execute("UPDATE hosts SET heartbeat_at = \(now), stopped = 0 WHERE id = ?", id)
            }
        }
        try await refresh()
    }

    /// Reads every host's state; observers hear of the changes.
    func refresh() async throws {
        guard let database else { return }
        let rows = try await database.query(
            "SELECT id, name, version, heartbeat_at, stopped, EXTRACT(EPOCH FROM clock_timestamp())::double precision AS now FROM hosts")
        var fresh: [String: Host] = [:]
        for row in rows {
            let heartbeat = try row.double("heartbeat_at")
            let online = try !row.bool("stopped") && row.double("now") - heartbeat <= timeout
            let id = try row.string("id")
            fresh[id] = Host(id: id, name: try row.string("name"), version: try row.string("version"), online: online, lastHeartbeat: heartbeat)
        }
        let changed = hosts.withLock { hosts -> [String] in
            let ids = Set(hosts.keys).union(fresh.keys)
            let changed = ids.filter { hosts[$0]?.online != fresh[$0]?.online || hosts[$0]?.name != fresh[$0]?.name }
            hosts = fresh
            return changed.sorted()
        }
        if !changed.isEmpty {
            for observer in observers.withLock({ $0 }) { observer(changed) }
        }
    }

    /// The database cannot be reached: every other host counts as offline here until it can be read again.
    func markOthersOffline() {
        let changed = hosts.withLock { hosts -> [String] in
            let online = hosts.values.filter { $0.online && $0.id != id }.map(\.id)
            for other in online { hosts[other]?.online = false }
            return online.sorted()
        }
        if !changed.isEmpty {
            for observer in observers.withLock({ $0 }) { observer(changed) }
        }
    }

    /// Says this host stopped (a graceful shutdown): the others show it offline at once.
    func stopped() async {
        guard let database else { return }
        _ = try? await database.write { db in
            try await db.execute("UPDATE hosts SET stopped = 1 WHERE id = ?", id)
            try await db.execute("SELECT pg_notify(?, ?)", ClusterNotice.channel, ClusterNotice.host(id).payload)
        }
    }
}
