import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The command line every model API double takes: `<program> [--port <n>] [--host <h>]` and the value options it adds
/// (e.g. fake-llm's `--require-key <key>`).
public struct DoubleOptions: Sendable {
    /// The address to bind (default 127.0.0.1).
    public var host = "127.0.0.1"
    /// The port to bind; 0 (the default) takes a free one, printed on the first stdout line.
    public var port = 0
    /// The extra value options given, by flag.
    public var values: [String: String] = [:]

    /// Parses the arguments after the program name. A bad or unknown option ends the process with status 1, after
    /// `<program>: <what is wrong>` and the usage on stderr.
    public static func parse(_ arguments: [String], program: String, valueOptions: [String] = []) -> DoubleOptions {
        let usage = "usage: \(program) [--port <n>] [--host <h>]" + valueOptions.map { " [\($0) <value>]" }.joined()
        func fail(_ message: String) -> Never {
            FileHandle.standardError.write(Data("\(program): \(message)\n\(usage)\n".utf8))
            exit(1)
        }
        var options = DoubleOptions()
        var i = 0
        func value(_ flag: String) -> String {
            i += 1
            guard i < arguments.count else { fail("\(flag) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--port":
                guard let p = Int(value("--port")), (0...65535).contains(p) else { fail("--port needs a number 0-65535") }
                options.port = p
            case "--host":
                options.host = value("--host")
            case "-h", "--help":
                print(usage)
                exit(0)
            case let flag where valueOptions.contains(flag):
                options.values[flag] = value(flag)
            case let other:
                fail("unknown option \(other)")
            }
            i += 1
        }
        return options
    }

    /// Writes `listening on http://<host>:<port>` as one line straight to stdout (nothing buffers it): how a test knows
    /// the double is up and which port it took.
    public func announce(port bound: Int?) {
        let line = Array("listening on http://\(host):\(bound ?? port)\n".utf8)
        line.withUnsafeBytes { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }
}
