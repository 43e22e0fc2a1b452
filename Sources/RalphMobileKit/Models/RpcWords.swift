import Foundation
import RalphAPI

/// Words for what ralph's RPC mode reports of a run (`SessionDetail.rpc`), shared by the app, the terminal client
/// and (in its own JavaScript) the web dashboard, so they all say the same.
public enum RpcWords {
    /// `$0.0270 so far (3 iterations)`.
    public static func cost(_ rpc: RpcTelemetry) -> String {
        let count = rpc.iterations.count
        return String(format: "$%.4f", rpc.costUsd) + " so far (\(count) iteration\(count == 1 ? "" : "s"))"
    }

    /// `60,000 of 100,000 tokens (60%)`, or nil before an iteration reported it.
    public static func context(_ rpc: RpcTelemetry) -> String? {
        guard let window = rpc.contextWindow, let used = rpc.contextTokens, let share = rpc.contextUse else { return nil }
        return "\(grouped(used)) of \(grouped(window)) tokens (\(Int((share * 100).rounded()))%)"
    }

    /// `Bash: swift test (iteration 3)` for each tool call in progress.
    public static func toolCalls(_ rpc: RpcTelemetry) -> [String] {
        rpc.toolCalls.map { call in
            let input = call.input?.objectValue?["command"]?.stringValue ?? call.input?.objectValue?["file_path"]?.stringValue
            return call.name + (input.map { ": \($0)" } ?? "") + (call.iteration.map { " (iteration \($0))" } ?? "")
        }
    }

    /// `this iteration (3): Check the failing test` / `next iteration: …`.
    public static func ack(_ ack: RpcAck) -> String {
        let when = ack.appliesTo == "current" ? "this iteration" + (ack.iteration.map { " (\($0))" } ?? "") : "next iteration"
        return "acknowledged for \(when): \(ack.message)"
    }

    /// The agent wave in progress or the latest one: `wave of builder (iteration 2): 1 of 3 workers done` /
    /// `wave of builder (iteration 2): 3 workers, 1 failed, 0.5 s`; nil when the run had none.
    public static func wave(_ rpc: RpcTelemetry) -> String? {
        guard let wave = rpc.wave else { return nil }
        let head = "wave of \(wave.hat)" + (wave.iteration.map { " (iteration \($0))" } ?? "") + ": "
        if wave.completed {
            let failed = wave.failed ?? wave.done.filter { !$0.success }.count
            return head + "\(wave.workerCount) workers" + (failed > 0 ? ", \(failed) failed" : "") + (wave.durationMs.map { ", " + seconds($0) } ?? "")
        }
        let failures = wave.done.filter { !$0.success }.count
        return head + "\(wave.done.count) of \(wave.workerCount) workers done" + (failures > 0 ? " (\(failures) failed)" : "")
    }

    /// `0.5 s`, `12 s`.
    static func seconds(_ ms: Int) -> String {
        ms < 10_000 ? String(format: "%.1f s", Double(ms) / 1000) : "\(ms / 1000) s"
    }

    /// Input and output tokens in total: `6,000 in · 600 out`.
    public static func tokens(_ rpc: RpcTelemetry) -> String {
        "\(grouped(rpc.inputTokens)) in · \(grouped(rpc.outputTokens)) out"
    }

    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.reversed().enumerated() {
            if i > 0, i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return String(out.reversed())
    }
}
