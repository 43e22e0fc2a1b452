import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import RalphAPI
import RalphMobileServer
import ServiceLifecycle
import Synchronization

/// A temporary directory removed when the test is done with it.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "rm-test") {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/\(label)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func subdirectory(_ name: String) -> String {
        let p = path + "/" + name
        try! FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The real server on a real socket (port 0), run the way `ralph-mobile-server` runs it.
public final class LiveServer: Sendable {
    public let server: RalphMobileServer
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    public var base: String { "http://127.0.0.1:\(port)" }

    public static func start(
        workspaces: [String], dataDirectory: String, logger: Logger = .forTests("test.server"), _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> LiveServer {
        var configuration = ServerConfiguration.forTests(dataDirectory: dataDirectory, workspaces: workspaces)
        configure(&configuration)
        // Opening the server opens its SQLite database and key file: blocking work, done off the few threads that
        // run every test's async code.
        let ready = configuration
        let server =
            ready.databaseURL == nil
            ? try await NIOThreadPool.singleton.runIfActive { try RalphMobileServer(configuration: ready, logger: logger) }
            : try await RalphMobileServer.open(configuration: ready, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = server.makeApplication { port in continuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let failure = Mutex<(any Error)?>(nil)
        let task = Task {
            // A server that ends before it listens (it could not bind, say) ends the wait for its port, saying why.
            defer { continuation.finish() }
            do {
                try await group.run()
            } catch {
                failure.withLock { $0 = error }
                throw error
            }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            throw TestFailure("server did not start: \(failure.withLock { $0.map { "\($0)" } } ?? "it ended without listening")")
        }
        return LiveServer(server: server, port: port, group: group, task: task)
    }

    private init(server: RalphMobileServer, port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.group = group
        self.task = task
    }

    /// Graceful shutdown, as SIGTERM would do.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A plain HTTP response.
public struct HTTPResult {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public var text: String { String(decoding: body, as: UTF8.self) }

    public func json<T: Decodable>(_ type: T.Type) throws -> T { try WireJSON.decode(T.self, from: body) }

    /// The body as untyped JSON.
    public var object: Any? { try? JSONSerialization.jsonObject(with: body) }
}

public enum HTTP {
    public static func request(
        _ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: String? = nil, timeout: TimeAmount = .seconds(10)
    ) async throws -> HTTPResult {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let buffer = try await response.body.collect(upTo: 64 << 20)
        return HTTPResult(status: Int(response.status.code), headers: response.headers, body: Data(buffer.readableBytesView))
    }

    public static func get(_ url: String, headers: [(String, String)] = []) async throws -> HTTPResult {
        try await request(url, headers: headers)
    }
}

/// Runs `body`, failing if it takes longer than `seconds`.
public func withTimeout<T: Sendable>(_ seconds: Double, _ what: String = "operation", _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    // Not a task group: leaving one waits for every child, so work that ignores cancellation (a server that does not
    // stop) would hang the test instead of failing it. The work is left behind when it times out.
    let outcome = Locked<CheckedContinuation<T, any Error>?>(nil)
    @Sendable func finish(_ result: Result<T, any Error>) {
        let continuation = outcome.withLock { current -> CheckedContinuation<T, any Error>? in
            defer { current = nil }
            return current
        }
        continuation?.resume(with: result)
    }
    var work: Task<Void, Never>?
    var timer: Task<Void, Never>?
    defer {
        work?.cancel()
        timer?.cancel()
    }
    return try await withCheckedThrowingContinuation { continuation in
        outcome.withLock { $0 = continuation }
        work = Task { finish(await Result(catching: body)) }
        timer = Task {
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            finish(.failure(TestFailure("timed out after \(seconds)s waiting for \(what)")))
        }
    }
}

extension Result where Failure == any Error {
    /// The outcome of async work.
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass.
public func eventually(_ seconds: Double = 5, _ what: String, _ condition: @escaping @Sendable () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("timed out after \(seconds)s waiting for \(what)")
}


/// A value behind a lock that can be shared with tasks.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    public init(_ value: Value) { mutex = Mutex(value) }
    public func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
    public var value: Value { mutex.withLock { $0 } }
}

/// The executables this package builds, next to the test bundle.
public enum Products {
    public static var directory: URL {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent()
    }

    public static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The `ralph` test double.
    public static var fakeRalph: String { path("fake-ralph") }

    /// The `claude` test double.
    public static var fakeClaude: String { path("fake-claude") }

    /// What a finished process printed.
    public struct Output: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// Runs a built executable to completion (without `RALPH_MOBILE_API_KEY` unless given); stdin is empty.
    ///
    /// Nothing blocks while it runs: tests run the server in this process, on the same few threads.
    public static func run(_ name: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> Output {
        try await run(executable: path(name), arguments, environment: environment)
    }

    /// Runs `executable` to its end and returns what it wrote. One still running after `timeout` seconds (a server
    /// that started where it should have refused to) is killed, so that the test fails instead of hanging.
    public static func run(executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 120) async throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["RALPH_MOBILE_API_KEY"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let (exited, exit) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exit.yield($0.terminationStatus); exit.finish() }
        try process.run()
        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(for: .seconds(timeout))
            kill(pid, SIGKILL)
        }
        defer { watchdog.cancel() }
        // Each pipe is read to its end on a thread of its own (never on the few threads async code runs on).
        async let stdout = readToEnd(out.fileHandleForReading)
        async let stderr = readToEnd(err.fileHandleForReading)
        var statuses = exited.makeAsyncIterator()
        let status = await statuses.next() ?? -1
        return Output(status: status, stdout: String(decoding: await stdout, as: UTF8.self), stderr: String(decoding: await stderr, as: UTF8.self))
    }

    static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: handle.readDataToEndOfFile()) }.start()
        }
    }
}
