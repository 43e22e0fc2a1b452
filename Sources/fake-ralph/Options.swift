import Foundation

/// `ralph run`'s flags, as far as the double needs them.
struct Options {
    var config: String?
    var prompt: String?
    var promptFile: String?
    var maxIterations: Int?
    var backend: String?
    /// `--rpc`: JSON lines on stdin (commands) and stdout (events) instead of the terminal output.
    var rpc = false
}


func parseArguments(_ args: [String]) -> Options {
    guard args.first == "run" else {
        fail("error: unrecognized subcommand '\(args.first ?? "")'\n\nUsage: ralph <COMMAND>\n\nFor more information, try '--help'.", code: 2)
    }
    var options = Options()
    var i = 1
    func value(_ flag: String) -> String {
        i += 1
        guard i < args.count else { fail("error: a value is required for '\(flag) <VALUE>' but none was supplied", code: 2) }
        return args[i]
    }
    while i < args.count {
        let arg = args[i]
        switch arg {
        case "-c", "--config": options.config = value(arg)
        case "-p", "--prompt": options.prompt = value(arg)
        case "-P", "--prompt-file": options.promptFile = value(arg)
        case "--max-iterations":
            guard let n = Int(value(arg)), n > 0 else { fail("error: invalid value for '--max-iterations <MAX_ITERATIONS>'", code: 2) }
            options.maxIterations = n
        case "-b", "--backend": options.backend = value(arg)
        case "-a", "--autonomous", "--no-tui": break
        case "--rpc": options.rpc = true
        default: fail("error: unexpected argument '\(arg)' found\n\nUsage: ralph run [OPTIONS]", code: 2)
        }
        i += 1
    }
    return options
}
