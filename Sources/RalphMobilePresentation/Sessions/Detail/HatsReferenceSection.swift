import RalphAPI

/// Section 9: the hats the run's workspace defines, what triggers each and what each publishes, and which is at work.
public struct HatsReferenceSection: Sendable, Equatable {
    public struct Row: Sendable, Equatable, Identifiable {
        /// The key under `hats:`.
        public var id: String
        /// The display name (its colour: `ThemeColor.hat(name)`).
        public var name: String
        /// The id when it differs from the name.
        public var idText: String?
        public var emoji: String
        public var description: String
        /// `triggers build.task, review.rejected → publishes build.done`.
        public var topicsText: String
        /// `from presets/feature.yml`.
        public var sourcesText: String?
        /// The hat of the run's latest orchestrator record.
        public var isAtWork: Bool
        /// `3 iterations in this run`, when the hat worked in it.
        public var usageText: String?
        public var accessibilityLabel: String
    }

    public var rows: [Row]
    /// `Loading hats…`, the load error, or `The workspace config defines no hats.`
    public var note: String?

    /// - Parameters:
    ///   - hats: the workspace's hats, nil while they load.
    ///   - loadError: why they could not be loaded.
    public init(hats: [HatItem]?, loadError: String?, currentHat: String?, usage: [HatUsage]) {
        guard let hats else {
            rows = []
            note = loadError.map { "Could not load the hats: \($0)" } ?? "Loading hats…"
            return
        }
        let current = currentHat?.lowercased()
        rows = hats.map { hat in
            let worked = usage.first { $0.hat.lowercased() == hat.id.lowercased() || $0.hat.lowercased() == hat.name.lowercased() }
            let atWork = current != nil && (current == hat.id.lowercased() || current == hat.name.lowercased())
            let topics = "triggers \(Self.list(hat.triggers)) → publishes \(Self.list(hat.publishes))"
            var label = [hat.name]
            if atWork { label.append("at work") }
            if !hat.description.isEmpty { label.append(hat.description) }
            label.append(topics)
            return Row(
                id: hat.id, name: hat.name.isEmpty ? hat.id : hat.name, idText: hat.id != hat.name && !hat.name.isEmpty ? hat.id : nil, emoji: hat.emoji,
                description: hat.description, topicsText: topics, sourcesText: hat.sources.isEmpty ? nil : "from " + hat.sources.joined(separator: ", "),
                isAtWork: atWork, usageText: worked.map { Formatting.count($0.iterations, "iteration") + " in this run" },
                accessibilityLabel: label.joined(separator: ", "))
        }
        note = rows.isEmpty ? "The workspace config defines no hats." : nil
    }

    static func list(_ topics: [String]) -> String { topics.isEmpty ? "nothing" : topics.joined(separator: ", ") }
}
