import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The command line: `fake-anthropic [--port <n>] [--host <h>]`.
struct Options: Sendable {
    /// The address to bind (default 127.0.0.1).
    var host = "127.0.0.1"
    /// The port to bind; 0 (the default) takes a free one, printed on the first stdout line.
    var port = 0

    /// Parses the arguments after the program name. A bad or unknown option ends the process with status 1.
    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
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
            case "--host": options.host = value("--host")
            case "-h", "--help":
                print("usage: fake-anthropic [--port <n>] [--host <h>]")
                exit(0)
            case let other: fail("unknown option \(other)")
            }
            i += 1
        }
        return options
    }

    /// Writes `fake-anthropic: <message>` on stderr and exits with status 1.
    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("fake-anthropic: \(message)\nusage: fake-anthropic [--port <n>] [--host <h>]\n".utf8))
        exit(1)
    }
}
