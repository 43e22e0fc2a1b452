import Foundation  // and, through it, the C library (Glibc or Darwin)

/// The command line (see the header of main.swift and `--help`).
struct Options {
    var server: String?
    var dir: String?
    var runs = 1_000
    var lines = 10_000_000
    var runsPerWorkspace = 20
    var repeats = 3
    var warm = 20
    var timeout: Double = 600

    static func parse(_ args: [String]) -> Options {
        var o = Options()
        var i = 0
        func value() -> String {
            i += 1
            guard i < args.count else { fail("\(args[i - 1]) needs a value") }
            return args[i]
        }
        func int(_ s: String) -> Int {
            guard let v = Int(s.replacingOccurrences(of: "_", with: "")), v > 0 else { fail("not a positive integer: \(s)") }
            return v
        }
        while i < args.count {
            switch args[i] {
            case "--server": o.server = value()
            case "--dir": o.dir = value()
            case "--runs": o.runs = int(value())
            case "--lines": o.lines = int(value())
            case "--runs-per-workspace": o.runsPerWorkspace = int(value())
            case "--repeat": o.repeats = int(value())
            case "--warm": o.warm = int(value())
            case "--timeout": o.timeout = Double(int(value()))
            case "-h", "--help":
                print("usage: workspace-scale --server <ralph-mobile-server> [--dir D] [--runs 1000] [--lines 10000000] [--runs-per-workspace 20] [--repeat 3] [--warm 20] [--timeout 600]")
                exit(0)
            default: fail("unknown argument \(args[i]) (see --help)")
            }
            i += 1
        }
        return o
    }
}
