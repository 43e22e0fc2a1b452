import Foundation
import RalphFiles
import Testing

@Suite("Line diff: Myers' shortest edit script, bounded")
struct DiffLineDiffTests {
    /// The length of the longest common subsequence, by the textbook quadratic table.
    static func lcs(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 1...a.count {
            for j in 1...b.count {
                table[i][j] = a[i - 1] == b[j - 1] ? table[i - 1][j - 1] + 1 : max(table[i - 1][j], table[i][j - 1])
            }
        }
        return table[a.count][b.count]
    }

    /// Runs `script` on `old`: the new sequence it produces, taking inserted elements from `new`.
    static func run<T: Equatable>(_ script: LineDiff.Script, _ old: [T], _ new: [T]) -> [T]? {
        var result: [T] = []
        var i = 0, j = 0
        for operation in script.operations {
            switch operation {
            case .keep:
                guard i < old.count, j < new.count, old[i] == new[j] else { return nil }
                result.append(old[i])
                i += 1
                j += 1
            case .delete:
                guard i < old.count else { return nil }
                i += 1
            case .insert:
                guard j < new.count else { return nil }
                result.append(new[j])
                j += 1
            }
        }
        return i == old.count && j == new.count ? result : nil
    }

    /// Whether every run of changes has its deletions before its insertions.
    static func deletionsFirst(_ script: LineDiff.Script) -> Bool {
        zip(script.operations, script.operations.dropFirst()).allSatisfy { !($0 == .insert && $1 == .delete) }
    }

    @Test("the paper's example needs five edits")
    func papersExample() {
        let a = Array("ABCABBA"), b = Array("CBABAC")
        let script = LineDiff.script(from: a, to: b)
        #expect(script.deletions + script.insertions == 5)
        #expect(script.isMinimal)
        #expect(Self.run(script, a, b) == b)
    }

    @Test("identical, empty and disjoint sequences")
    func edgeCases() {
        #expect(LineDiff.script(from: ["a", "b"], to: ["a", "b"]).operations == [.keep, .keep])
        #expect(LineDiff.script(from: [String](), to: []).operations.isEmpty)
        #expect(LineDiff.script(from: [], to: ["a"]).operations == [.insert])
        #expect(LineDiff.script(from: ["a"], to: []).operations == [.delete])
        #expect(LineDiff.script(from: ["a", "b"], to: ["c", "d"]).operations == [.delete, .delete, .insert, .insert])
        #expect(LineDiff.script(from: ["a", "b", "c"], to: ["a", "c", "d"]).operations == [.keep, .delete, .keep, .insert])
    }

    @Test("on random small inputs the script is valid, minimal (the brute-force LCS agrees) and deletes before it inserts")
    func matchesBruteForceLCS() {
        var random = SplitMix64(state: 23)
        for round in 0..<600 {
            let alphabet = Array("abcd".prefix(round % 3 + 2))
            let a = (0..<Int.random(in: 0...14, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let b = (0..<Int.random(in: 0...14, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let script = LineDiff.script(from: a, to: b)
            #expect(Self.run(script, a, b) == b, "\(String(a)) → \(String(b))")
            #expect(script.deletions + script.insertions == a.count + b.count - 2 * Self.lcs(a, b), "\(String(a)) → \(String(b))")
            #expect(script.isMinimal)
            #expect(Self.deletionsFirst(script), "\(String(a)) → \(String(b)): \(script.operations)")
        }
    }

    @Test("small changes far apart in a 20 000-line file give a minimal script of their size")
    func largeFileSmallChanges() {
        let old = (0..<20_000).map { "line \($0)" }
        var new = old
        new[10] = "changed 10"
        new.remove(at: 9_000)
        new.insert("inserted", at: 15_000)
        new[19_990] = "changed near the end"
        let script = LineDiff.script(from: old, to: new)
        let minimal = script.isMinimal
        #expect(minimal)
        #expect(script.deletions == 3)
        #expect(script.insertions == 3)
        #expect(Self.run(script, old, new) == new)
    }

    @Test("past the edit limit the changed middle is removed and added whole, still a valid script")
    func editLimitFallsBack() {
        let old = ["head"] + (0..<300).map { "old \($0)" } + ["tail"]
        let new = ["head"] + (0..<300).map { "new \($0)" } + ["tail"]
        let script = LineDiff.script(from: old, to: new, limits: LineDiff.Limits(maxEdits: 50))
        #expect(!script.isMinimal)
        #expect(script.operations == [.keep] + Array(repeating: .delete, count: 300) + Array(repeating: .insert, count: 300) + [.keep])
        #expect(Self.run(script, old, new) == new)
        let within = LineDiff.script(from: old, to: new, limits: LineDiff.Limits(maxEdits: 600))
        #expect(within.isMinimal)
    }

    @Test("past the work limit the search stops too")
    func workLimitFallsBack() {
        let old = (0..<2_000).map { $0 % 2 == 0 ? "x" : "o\($0)" }
        let new = (0..<2_000).map { $0 % 2 == 0 ? "x" : "n\($0)" }
        let capped = LineDiff.script(from: old, to: new, limits: LineDiff.Limits(maxEdits: 10_000, maxWork: 1_000))
        let cappedIsMinimal = capped.isMinimal
        #expect(!cappedIsMinimal)
        #expect(Self.run(capped, old, new) == new)
        let full = LineDiff.script(from: old, to: new)
        let fullIsMinimal = full.isMinimal
        #expect(fullIsMinimal)
        #expect(full.deletions == 1_000)
    }

    @Test("two unrelated 10 000-line files end the search at its default limit")
    func worstCaseIsBounded() {
        let old = (0..<10_000).map { "old \($0)" }
        let new = (0..<10_000).map { "new \($0)" }
        let script = LineDiff.script(from: old, to: new)
        let minimal = script.isMinimal
        #expect(!minimal)
        #expect(script.deletions == 10_000)
        #expect(script.insertions == 10_000)
    }
}
