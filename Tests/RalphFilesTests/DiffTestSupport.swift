import Foundation
import RalphAPI
import RalphFiles
import Testing

/// A workspace root holding `ws/` (the conversation's working directory), and a directory outside it, for previews
/// of edits against real files.
struct DiffWorkspace {
    let root = TempDir()
    let outside = TempDir()
    var cwd: String { root.path + "/ws" }

    init() {
        root.dir("ws")
    }

    /// The preview over the root, from `ws/`.
    func preview(limits: DiffPreview.Limits = DiffPreview.Limits()) -> DiffPreview {
        DiffPreview(roots: [RootDirectory(path: root.path)], cwd: cwd, limits: limits)
    }

    /// Writes `ws/<relative>` and returns its absolute path.
    @discardableResult
    func write(_ relative: String, _ text: String) -> String { root.file("ws/" + relative, text) }

    /// The text of `ws/<relative>`, nil when missing.
    func text(_ relative: String) -> String? { try? String(contentsOfFile: cwd + "/" + relative, encoding: .utf8) }

    /// The one diff a tool call gives.
    func diff(_ tool: String, _ input: JSONValue) -> FileDiff {
        let diffs = preview().preview(tool: tool, input: input)
        #expect(diffs.count == 1, "one file: \(diffs)")
        return diffs.first ?? FileDiff(path: "", kind: .update, error: "no diff")
    }
}

/// `count` numbered lines, `"1\n2\n…"`, with a final newline.
func numberedLines(_ count: Int) -> String {
    (1...count).map(String.init).joined(separator: "\n") + "\n"
}

/// `text` with line `number` (1-based) replaced by `replacement`.
func replacingLine(_ number: Int, of text: String, with replacement: String) -> String {
    var lines = text.components(separatedBy: "\n")
    lines[number - 1] = replacement
    return lines.joined(separator: "\n")
}

/// A seeded generator, so the property tests are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
