import AgentRunner
import Foundation
import Synchronization

/// A private PostgreSQL cluster for a test, from Debian's `postgresql` package: `initdb` into a temporary directory,
/// `pg_ctl start` on a free port (listening on 127.0.0.1 only, its socket in that directory), a fresh database per
/// ``makeDatabase(_:)``. ``stop()`` stops it and removes the directory; ``restart()`` stops and starts it on the same
/// port (a database going away under load).
public final class PostgresServer: Sendable {
    public let directory: String
    public let port: Int
    public let user = "ralph"
    private let bin: String

    /// Where Debian installs the server programs (`/usr/lib/postgresql/<version>/bin`), or nil.
    public static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        return versions.last.map { "\(root)/\($0)/bin" }.flatMap { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") ? $0 : nil }
    }()

    /// One cluster shared by the tests of this process that only need databases of their own (``makeDatabase(_:)``):
    /// started on first use, stopped when the process exits.
    public static func shared() async throws -> PostgresServer {
        try await sharedServer.value.get()
    }

    private static let sharedServer = Task { () -> Result<PostgresServer, any Error> in
        do {
            let server = try await start()
            let stop = "\(getuid() == 0 ? "runuser -u postgres -- " : "")\(server.bin)/pg_ctl -D \(server.directory)/data -m immediate -w stop >/dev/null 2>&1; rm -rf \(server.directory)"
            SharedStop.command.withLock { $0 = stop }
            atexit { SharedStop.run() }
            return .success(server)
        } catch {
            return .failure(error)
        }
    }

    /// Starts a cluster; fails saying how to get PostgreSQL when it is not installed.
    public static func start() async throws -> PostgresServer {
        guard let bin = binaries else {
            throw TestFailure("PostgreSQL is not installed: apt-get install postgresql (the tests start a private cluster with initdb and pg_ctl)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rm-pg-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // PostgreSQL refuses to run as root: as root, its programs run as Debian's `postgres` user, who owns the directory.
        if getuid() == 0 {
            guard let account = getpwnam("postgres") else { throw TestFailure("running as root and there is no postgres user to run PostgreSQL as") }
            chown(directory, account.pointee.pw_uid, account.pointee.pw_gid)
        }
        let server = PostgresServer(directory: directory, port: try freePort(), bin: bin)
        try await server.run("initdb", ["-D", directory + "/data", "-U", server.user, "--auth=trust", "-E", "UTF8", "--no-sync"])
        try await server.startServer()
        return server
    }

    private init(directory: String, port: Int, bin: String) {
        self.directory = directory
        self.port = port
        self.bin = bin
    }

    /// A new, empty database; its URL.
    public func makeDatabase(_ name: String = "rm_\(UUID().uuidString.prefix(8).lowercased())") async throws -> String {
        try await run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", user, name])
        return "postgres://\(user)@127.0.0.1:\(port)/\(name)"
    }

    /// The database `name`, created on first use; its URL.
    public func database(named name: String) async throws -> String {
        let url = "postgres://\(user)@127.0.0.1:\(port)/\(name)"
        let exists = try await run("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", user, "-d", "postgres", "-tAc", "SELECT 1 FROM pg_database WHERE datname = '\(name)'"])
        if exists.trimmingCharacters(in: .whitespacesAndNewlines) != "1" { return try await makeDatabase(name) }
        return url
    }

    /// Stops the server (fast: connections are cut) and starts it again on the same port and data.
    public func restart(downFor seconds: Double = 0) async throws {
        try await run("pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "stop"])
        if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) }
        try await startServer()
    }

    /// Stops the server and removes its files.
    public func stop() async {
        _ = try? await run("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func startServer() async throws {
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300"
        try await run("pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-o", options, "-w", "start"])
    }

    /// Runs a PostgreSQL program (as the `postgres` user when we are root) to its end; its output.
    @discardableResult
    private func run(_ program: String, _ arguments: [String]) async throws -> String {
        let path = bin + "/" + program
        let (executable, argv) = getuid() == 0 ? ("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments) : (path, arguments)
        let process = try AgentProcess.start(executable: executable, arguments: argv, workingDirectory: "/", environment: ["PATH": "/usr/bin:/bin"])
        process.closeStdin()
        var output: [UInt8] = []
        for await line in process.lines { output += line + [0x0A] }
        let exit = await process.waitForExit()
        guard exit == .exited(0) else {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) failed (\(exit)): \(process.stderrTail)\n\(log.suffix(2000))")
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw TestFailure("no free port") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// How the shared cluster is stopped at exit.
private enum SharedStop {
    static let command = Mutex<String?>(nil)
    static func run() {
        guard let command = command.withLock({ $0 }) else { return }
        _ = system(command)
    }
}
