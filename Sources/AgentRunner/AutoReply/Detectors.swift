import Foundation

/// The rule-based detectors of the auto-reply loop (`design/CHAT.md`, Auto-reply): pure functions over reply texts.
///
/// All matching is case-insensitive; typographic apostrophes (’) count as `'`. Patterns are Swift regexes compiled
/// per call (replies are short and a loop evaluates one reply per turn).

/// A named, case-insensitive regular expression.
struct TextRule: Sendable, Hashable {
    var name: String
    var pattern: String

    /// The first match of the pattern in `text`, or nil.
    func firstMatch(in text: String) -> Substring? {
        // The patterns are constants checked by the tests; an invalid one simply never matches.
        guard let regex = try? Regex(pattern).ignoresCase() else { return nil }
        return text.firstMatch(of: regex).map { text[$0.range] }
    }

    static func normalize(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{2019}", with: "'").replacingOccurrences(of: "\u{2018}", with: "'")
    }
}

/// How sure the rules are that a reply says the task is finished.
public enum CompletionDetector {
    public struct Verdict: Sendable, Hashable {
        /// 0 – 1; 0 when nothing matched.
        public var confidence: Double
        /// An explicit completion signal (`LOOP_COMPLETE`, "task complete"): what `until_completion` waits for.
        public var explicit: Bool
        /// The rule that decided: the winning completion rule, or the negation rule that capped it.
        public var rule: String?

        public init(confidence: Double, explicit: Bool, rule: String?) {
            self.confidence = confidence
            self.explicit = explicit
            self.rule = rule
        }

        public static let none = Verdict(confidence: 0, explicit: false, rule: nil)
    }

    public struct Rule: Sendable, Hashable {
        public var name: String
        public var pattern: String
        public var confidence: Double
        public var explicit: Bool
    }

    /// Completion rules; the highest confidence that matches wins (ties: the first in this order).
    public static let rules: [Rule] = [
        Rule(name: "loop_complete", pattern: #"\bLOOP_COMPLETE\b"#, confidence: 1.0, explicit: true),
        Rule(
            name: "task_complete",
            pattern: #"\btask[ _]complete(d)?\b|\b(the |this |my |your )?task (is|has been) (now )?(fully )?(complete|completed|finished|done)\b|\ball (the )?tasks (are |have been )?(now )?(complete|completed|finished|done)\b"#,
            confidence: 0.95, explicit: true
        ),
        Rule(
            name: "done_statement",
            pattern: #"\bi'?m (all |now )?done\b|\bi am (all |now )?done\b|\beverything (is|has been) (now )?(done|complete|completed|finished)\b|\bimplementation (is |has been )?(now )?(fully )?complete(d)?\b|\b(the |all )?work is (now )?(complete|completed|done|finished)\b"#,
            confidence: 0.85, explicit: false
        ),
        Rule(
            name: "tests_pass",
            pattern: #"\ball (\d+ )?(of the )?(unit |integration )?tests? (now )?(pass|passes|passed|are passing|succeeded)\b|\b0 failures\b|test suite 'all tests' passed|\btests? passed\b|\bbuild succeeded\b|\bbuild (was )?successful\b"#,
            confidence: 0.8, explicit: false
        ),
        Rule(name: "moderate", pattern: #"\bfinished\b|\bcompleted\b|\bready for (your )?review\b"#, confidence: 0.6, explicit: false),
        Rule(name: "weak", pattern: #"\blooks good\b|\bshould (now )?work\b|\bthat'?s it\b"#, confidence: 0.4, explicit: false),
    ]

    /// Negations and failures: any match caps the confidence at ``negatedCap`` and the verdict is never explicit.
    public static let negations: [(name: String, pattern: String)] = [
        ("negated", #"(\bnot|n't|\bnever)\s+(yet\s+)?(been\s+|fully\s+|quite\s+|all\s+)?(done|complete|completed|finished|passing|pass|passed|working|successful|succeeded)\b|\bincomplete\b|\bnot yet\b"#),
        ("cannot_complete", #"\b(cannot|can't|could not|couldn't|unable to|failed to)\s+(be\s+)?(complete|completed|finish|finished)\b"#),
        ("tests_fail", #"\btests? (are |is |still )*(fail|fails|failed|failing)\b|\bfailing tests?\b|\bbuild failed\b"#),
        ("failures", #"\b[1-9]\d* (test )?failures?\b|\b[1-9]\d* (tests? )?failed\b"#),
        ("more_to_do", #"\bstill (need|needs|have|has) to\b|\bnext,? (i will|i'll|i need to|i should|we will|we'll|we need to)\b|\bremaining (steps|work|tasks|items)\b"#),
        ("todo", #"(^|\n)\s*([-*]|\d+\.)?\s*TODO\b|\bTODO:"#),
    ]

    public static let negatedCap = 0.3

    public static func evaluate(_ reply: String) -> Verdict {
        let text = TextRule.normalize(reply)
        var best = Verdict.none
        for rule in rules where rule.confidence > best.confidence {
            if TextRule(name: rule.name, pattern: rule.pattern).firstMatch(in: text) != nil {
                best = Verdict(confidence: rule.confidence, explicit: rule.explicit, rule: rule.name)
            }
        }
        guard best.confidence > 0 else { return best }
        for negation in negations where TextRule(name: negation.name, pattern: negation.pattern).firstMatch(in: text) != nil {
            return Verdict(confidence: min(best.confidence, negatedCap), explicit: false, rule: negation.name)
        }
        return best
    }
}

/// Replies that need a person: the loop pauses and says why.
public enum ShowstopperDetector {
    /// Rules in order; the first that matches gives the reason (with the matched words quoted).
    public static let rules: [(reason: String, pattern: String)] = [
        (
            "the agent asks for a person",
            #"\bneeds? human intervention\b|\bneeds? (a )?human\b|\b(cannot|can't|can not|unable to) continue\b|\bblocked on\b"#
        ),
        (
            "credentials or a login are needed",
            #"\bcredentials? (are |is )?(required|missing|invalid|expired|needed)\b|\b(missing|invalid|expired|need|needs|provide|no) (an |the |your |a valid )?api[ _-]?key\b|\bapi[ _-]?key (is )?(missing|required|invalid|expired|not set|needed)\b|\bneed (your |the |a )?password\b|\bauthentication failed\b|\b(please|need to|needs to|must|have to|you'll need to)\s+log ?in\b|\blog-?in (is )?required\b|\bnot logged in\b|\b2fa\b|\btwo-factor\b|\bone-time (code|password)\b"#
        ),
        ("permission denied", #"\bpermission denied\b"#),
        (
            "it asks to confirm something destructive",
            #"\b(should i|shall i|do you want me to|would you like me to|can i|may i|ok to|okay to|please confirm|confirm (whether|if|that|before)|can you confirm)\b[^.?!\n]{0,80}(\bdelete\b|\bdrop\b|\bforce[- ]push|rm -rf|\bwipe\b|reset --hard|\bdestroy\b|\btruncate\b)"#
        ),
        (
            "a quota, rate limit or memory limit was hit",
            #"\bquota (was |is |has been )?exceeded\b|\bexceeded (your |the |its )?quota\b|\brate[- ]limit(ed| exceeded| reached| hit)\b|\bhit (the |a )?rate[- ]limit\b|\btoo many requests\b|\bout of memory\b|\busage limit (reached|exceeded)\b"#
        ),
    ]

    static let errorLine = #"\bfatal\b|\berror:|\bexception\b|\bpanic(ked)?\b"#

    /// A reason for a person, or nil. `previous` are the earlier replies, oldest first (the last 3 are used).
    public static func evaluate(_ reply: String, previous: [String]) -> String? {
        let text = TextRule.normalize(reply)
        for rule in rules {
            if let match = TextRule(name: rule.reason, pattern: rule.pattern).firstMatch(in: text) {
                return "\(rule.reason) (\"\(match.prefix(120))\")"
            }
        }
        let error = TextRule(name: "error", pattern: errorLine)
        if error.firstMatch(in: text) != nil, previous.suffix(3).filter({ error.firstMatch(in: TextRule.normalize($0)) != nil }).count >= 2 {
            return "the same kind of error keeps coming back"
        }
        return nil
    }
}

/// Near-identical replies in a row.
public enum StuckDetector {
    static func words(_ text: String) -> Set<Substring> {
        let lower = text.lowercased()
        return Set(lower.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }))
    }

    /// Jaccard similarity of the lowercased word sets; 1 for two empty texts, 0 when only one is empty.
    public static func similarity(_ a: String, _ b: String) -> Double {
        let x = words(a)
        let y = words(b)
        if x.isEmpty && y.isEmpty { return 1 }
        let union = x.union(y).count
        return Double(x.intersection(y).count) / Double(union)
    }

    /// True when there are at least `window` (≥ 2) replies and the last `window` are pairwise ≥ `threshold`.
    public static func isStuck(_ replies: [String], window: Int = 3, threshold: Double = 0.9) -> Bool {
        guard window >= 2, replies.count >= window else { return false }
        let last = Array(replies.suffix(window))
        for i in 0..<last.count {
            for j in (i + 1)..<last.count where similarity(last[i], last[j]) < threshold {
                return false
            }
        }
        return true
    }
}
