/// The shortest edit script between two sequences of lines, by Myers' O(ND) greedy algorithm ("An O(ND) Difference
/// Algorithm and Its Variations", 1986): the common prefix and suffix are set aside first, then the edit graph of the
/// middle is explored one edit distance `d` at a time, keeping for each diagonal `k = x - y` the furthest point a path of
/// `d` edits reaches, and the path is read back from the furthest points saved at each `d`.
///
/// Time is O((N + M) · D) and memory O(D²) for D edits, so it is bounded: past ``Limits/maxEdits`` edits (or
/// ``Limits/maxWork`` steps) the search stops and the script says the middle was removed and added whole
/// (``Script/isMinimal`` is false).
///
/// ```swift
/// let script = LineDiff.script(from: ["a", "b", "c"], to: ["a", "c", "d"])
/// // [.keep, .delete, .keep, .insert]
/// ```
public enum LineDiff {
    /// One step of an edit script, taking the next line of the old sequence, the new one, or both.
    public enum Operation: Sendable, Hashable {
        /// The next old line and the next new line are the same line.
        case keep
        /// The next old line is removed.
        case delete
        /// The next new line is added.
        case insert
    }

    /// How far the search may go before it gives up on a minimal script.
    public struct Limits: Sendable, Hashable {
        /// The most edits (deleted plus inserted lines) searched for.
        public var maxEdits: Int
        /// The most steps (diagonals visited plus lines compared) the search may take.
        public var maxWork: Int

        public init(maxEdits: Int = 2_000, maxWork: Int = 20_000_000) {
            self.maxEdits = maxEdits
            self.maxWork = maxWork
        }
    }

    /// An edit script: applying its operations in order turns the old sequence into the new one. Within each run of
    /// changes, deletions come before insertions.
    public struct Script: Sendable, Hashable {
        public var operations: [Operation]
        /// False when the limits were reached and the changed middle is shown removed and added whole.
        public var isMinimal: Bool

        /// The lines deleted.
        public var deletions: Int { operations.count { $0 == .delete } }
        /// The lines inserted.
        public var insertions: Int { operations.count { $0 == .insert } }
    }

    /// The edit script from `old` to `new` (elements compared with `==`).
    public static func script<Element: Hashable>(from old: [Element], to new: [Element], limits: Limits = Limits()) -> Script {
        var ids: [Element: Int] = [:]
        func intern(_ element: Element) -> Int {
            if let id = ids[element] { return id }
            ids[element] = ids.count
            return ids.count - 1
        }
        let a = old.map(intern)
        let b = new.map(intern)
        return script(ids: a, b, limits: limits)
    }

    /// The edit script between two sequences of interned line ids.
    static func script(ids a: [Int], _ b: [Int], limits: Limits) -> Script {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let middleA = Array(a[prefix..<(a.count - suffix)])
        let middleB = Array(b[prefix..<(b.count - suffix)])
        var operations = [Operation](repeating: .keep, count: prefix)
        let middle = myers(middleA, middleB, limits: limits)
        operations += middle ?? Array(repeating: .delete, count: middleA.count) + Array(repeating: .insert, count: middleB.count)
        operations += repeatElement(.keep, count: suffix)
        return Script(operations: deletionsFirst(operations), isMinimal: middle != nil)
    }

    /// The furthest-reaching points of each edit distance: for distance `d`, the x reached on diagonals `-d…d`, stored
    /// one after the other (distance `d` starts at `d²`).
    private struct Trace {
        var values: [Int32] = []
        func x(d: Int, k: Int) -> Int { Int(values[d * d + k + d]) }
    }

    /// Myers' forward search over `a` and `b`; nil when the limits are reached.
    private static func myers(_ a: [Int], _ b: [Int], limits: Limits) -> [Operation]? {
        let n = a.count, m = b.count
        if n == 0 || m == 0 { return Array(repeating: .delete, count: n) + Array(repeating: .insert, count: m) }
        let maxD = min(n + m, limits.maxEdits)
        var v = [Int](repeating: 0, count: 2 * maxD + 3)
        let offset = maxD + 1
        var trace = Trace()
        var work = 0
        for d in 0...maxD {
            for k in stride(from: -d, through: d, by: 2) {
                let start = k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1
                var x = start
                var y = x - k
                while x < n, y < m, a[x] == b[y] {
                    x += 1
                    y += 1
                }
                work += 1 + x - start
                v[offset + k] = x
                if x >= n, y >= m {
                    trace.values += v[(offset - d)...(offset + d)].map { Int32($0) }
                    return backtrack(trace, d: d, n: n, m: m)
                }
            }
            if work > limits.maxWork { return nil }
            trace.values += v[(offset - d)...(offset + d)].map { Int32($0) }
        }
        return nil
    }

    /// Reads the path back from `(n, m)` at distance `d` to `(0, 0)`, taking at each distance the step the forward
    /// search took.
    private static func backtrack(_ trace: Trace, d: Int, n: Int, m: Int) -> [Operation] {
        var reversed: [Operation] = []
        reversed.reserveCapacity(n + m)
        var x = n, y = m
        var d = d
        while d > 0 {
            let k = x - y
            let down = k == -d || (k != d && trace.x(d: d - 1, k: k - 1) < trace.x(d: d - 1, k: k + 1))
            let previousK = down ? k + 1 : k - 1
            let previousX = trace.x(d: d - 1, k: previousK)
            let previousY = previousX - previousK
            let startX = down ? previousX : previousX + 1
            while x > startX {
                reversed.append(.keep)
                x -= 1
                y -= 1
            }
            reversed.append(down ? .insert : .delete)
            x = previousX
            y = previousY
            d -= 1
        }
        reversed += repeatElement(.keep, count: x)
        return reversed.reversed()
    }

    /// The same script with each run of changes reordered to its deletions, then its insertions.
    private static func deletionsFirst(_ operations: [Operation]) -> [Operation] {
        var result: [Operation] = []
        result.reserveCapacity(operations.count)
        var deletions = 0, insertions = 0
        func flush() {
            result += repeatElement(.delete, count: deletions)
            result += repeatElement(.insert, count: insertions)
            deletions = 0
            insertions = 0
        }
        for operation in operations {
            switch operation {
            case .keep:
                flush()
                result.append(.keep)
            case .delete: deletions += 1
            case .insert: insertions += 1
            }
        }
        flush()
        return result
    }
}
