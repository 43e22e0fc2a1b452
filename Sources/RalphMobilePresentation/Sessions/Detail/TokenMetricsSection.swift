import RalphAPI

/// The points of a sparkline, normalised to a unit square so a view only scales them to its size.
///
/// `x` runs from 0 (the oldest value) to 1 (the newest), evenly spaced; `y` from 0 (the smallest value) to 1 (the
/// largest). A flat series sits at `y = 0.5`. Fewer than two values make no line.
public struct Sparkline: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double

        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    public var values: [Int]
    public var points: [Point]
    public var minimum: Int
    public var maximum: Int

    public init(values: [Int]) {
        self.values = values
        minimum = values.min() ?? 0
        maximum = values.max() ?? 0
        guard values.count >= 2 else {
            points = []
            return
        }
        let span = Double(maximum - minimum)
        let last = Double(values.count - 1)
        let low = Double(minimum)
        points = values.enumerated().map { index, value in
            Point(x: Double(index) / last, y: span == 0 ? 0.5 : (Double(value) - low) / span)
        }
    }

    /// Whether there is a line to draw.
    public var isDrawable: Bool { !points.isEmpty }
}

/// Section 2: token usage, summed over the events that report it, with the sparkline of the latest reports.
public struct TokenMetricsSection: Sendable, Equatable {
    /// Input, Output, Cache read, Cache write, Cost, Reports; empty when the agent reports nothing.
    public var stats: [SectionStat]
    /// Tokens (input + output) per report, oldest first.
    public var sparkline: Sparkline
    /// Under the sparkline: `Tokens per report, last 12`, or why there is none yet.
    public var sparklineCaption: String
    /// VoiceOver's description of the sparkline.
    public var sparklineAccessibilityLabel: String
    /// Shown instead of everything above when nothing was reported.
    public var emptyText: String?

    /// - Parameters:
    ///   - sparklineValues: tokens per report, oldest first (``SessionMonitor/tokenSparkline``).
    public init(tokens: TokenMetrics?, sparklineValues: [Int]) {
        sparkline = Sparkline(values: sparklineValues)
        guard let tokens, tokens.reports > 0 else {
            stats = []
            emptyText = "This agent reports no token usage."
            sparklineCaption = ""
            sparklineAccessibilityLabel = ""
            return
        }
        emptyText = nil
        func tokenStat(_ label: String, _ value: Int) -> SectionStat {
            SectionStat(label, Formatting.tokens(value), accessibilityLabel: "\(label): \(Formatting.number(value)) tokens")
        }
        stats = [
            tokenStat("Input", tokens.inputTokens), tokenStat("Output", tokens.outputTokens), tokenStat("Cache read", tokens.cacheReadTokens),
            tokenStat("Cache write", tokens.cacheCreationTokens),
            SectionStat("Cost", Formatting.cost(tokens.costUsd), accessibilityLabel: tokens.costUsd == nil ? "Cost: not reported" : "Cost: \(Formatting.cost(tokens.costUsd)) US dollars"),
            SectionStat("Reports", Formatting.number(tokens.reports)),
        ]
        if sparkline.isDrawable {
            sparklineCaption = "Tokens per report, last \(sparklineValues.count)"
            sparklineAccessibilityLabel =
                "Tokens, input plus output, of the last \(sparklineValues.count) reports, from \(Formatting.number(sparkline.minimum)) to \(Formatting.number(sparkline.maximum)), latest \(Formatting.number(sparklineValues.last))"
        } else {
            sparklineCaption = "The sparkline appears after two usage reports."
            sparklineAccessibilityLabel = ""
        }
    }
}
