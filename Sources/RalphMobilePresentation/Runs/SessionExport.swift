import Foundation
import RalphAPI

/// A file handed to the share sheet.
public struct ExportFile: Sendable, Equatable {
    public var fileName: String
    /// `application/json` or `text/markdown`.
    public var mimeType: String
    public var contents: Data

    public init(fileName: String, mimeType: String, contents: Data) {
        self.fileName = fileName
        self.mimeType = mimeType
        self.contents = contents
    }

    /// The contents as text (both exports are UTF-8).
    public var text: String { String(decoding: contents, as: UTF8.self) }

    /// Writes the file into `directory` under ``fileName`` (replacing an older copy) and returns its URL, for the share
    /// sheet, which shares files by URL.
    public func write(into directory: URL) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(fileName, isDirectory: false)
        try contents.write(to: url, options: .atomic)
        return url
    }

    /// Writes the file into the folder `folder` of the temporary directory (see ``write(into:)``).
    public func writeTemporary(folder: String) throws -> URL {
        try write(into: FileManager.default.temporaryDirectory.appendingPathComponent(folder, isDirectory: true))
    }
}

/// A session's data for the share sheet: the whole record as JSON, and a summary people read, as Markdown.
public struct SessionExport: Sendable, Equatable {
    /// `ralph-session-3fa2c901-20260205T080913Z.json`: the SDK's export (the detail and every event kept, oldest
    /// first) with the iterations and the stream's state added.
    public var json: ExportFile
    /// `ralph-session-3fa2c901-20260205T080913Z.md`: the ten sections as text.
    public var summary: ExportFile

    /// The stem both file names share.
    public static func fileStem(sessionID: String, at date: Date) -> String {
        "ralph-session-\(Formatting.id8(sessionID))-\(Formatting.fileStamp(date))"
    }

    /// Adds what the screen knows to the SDK's JSON export (``SessionMonitor/exportJSON()``), indented for reading.
    static func json(base: Data, iterations: [IterationItem]?, hats: [HatItem]?, stream: JSONValue) throws -> Data {
        var members: [(key: String, value: JSONValue)] = []
        if case .object(let object) = try JSONParser.parse(Array(base)) { members = object.members }
        if let iterations { members.append(("iterations", try encoded(iterations))) }
        if let hats { members.append(("hats", try encoded(hats))) }
        members.append(("stream", stream))
        return Data((Formatting.prettyJSON(.object(JSONObject(members))) + "\n").utf8)
    }

    static func encoded(_ value: some Encodable) throws -> JSONValue {
        try JSONParser.parse(Array(WireJSON.encode(value)))
    }
}

/// The Markdown summary of a session: the ten sections as a person reads them in a mail or a note.
public struct SessionSummary: Sendable {
    public var header: StatusHeader
    public var question: PendingQuestionCard?
    public var tokens: TokenMetricsSection
    public var hatFlow: HatFlowSection
    public var backpressure: BackpressureSection
    public var iterations: IterationStatsSection
    public var mode: SessionBadge
    public var recentEvents: RecentEventsSection
    public var stream: EventStreamSection
    public var hats: HatsReferenceSection
    /// Generated at (shown in the footer).
    public var exportedAt: String

    /// How many stream events the summary lists.
    public static let eventLimit = 50

    public var markdown: String {
        var out = "# \(escape(header.title))\n\n"
        out += "- Session: `\(header.fullID)`\n"
        out += "- Mode: \(mode.text)" + (header.status.map { " · status \($0.text)" } ?? "") + "\n"
        if let ended = header.endedText { out += "- \(escape(ended))\n" }
        for row in header.rows where row.label != "Id" { out += "- \(row.label): \(escape(row.value))\n" }
        if let question {
            out += "\n## Pending question\n\n> \(escape(Formatting.oneLine(question.text, max: 500)))\n\n\(question.detailText)\n"
        }
        out += "\n## Tokens\n\n"
        if let empty = tokens.emptyText {
            out += empty + "\n"
        } else {
            out += tokens.stats.map { "- \($0.label): \($0.value)" }.joined(separator: "\n") + "\n"
            if tokens.sparkline.isDrawable { out += "- \(tokens.sparklineCaption): " + tokens.sparkline.values.map(Formatting.number).joined(separator: ", ") + "\n" }
        }
        out += "\n## Hat flow\n\n"
        if let empty = hatFlow.emptyText {
            out += empty + "\n"
        } else {
            if !hatFlow.usage.isEmpty { out += hatFlow.usage.map { "\($0.hat) (\($0.text))" }.joined(separator: ", ") + "\n\n" }
            out += hatFlow.summary + ":\n\n" + hatFlow.changes.map { "- \($0.fromText) → \($0.to): \($0.detailText)" }.joined(separator: "\n") + "\n"
        }
        out += "\n## Backpressure\n\n"
        if let empty = backpressure.emptyText {
            out += empty + "\n"
        } else {
            out += backpressure.checks.map { "- \($0.name): \($0.text)" }.joined(separator: "\n") + "\n\n" + backpressure.footer + "\n"
        }
        out += "\n## Iterations\n\n" + iterations.stats.map { "- \($0.label): \($0.value)" }.joined(separator: "\n") + "\n"
        if !iterations.latest.isEmpty {
            out += "\nLatest:\n\n" + iterations.latest.map { "- \($0.numberText) \($0.hat ?? "—"): \($0.detailText)" }.joined(separator: "\n") + "\n"
        }
        out += "\n## Hats\n\n"
        if let note = hats.note {
            out += note + "\n"
        } else {
            out += hats.rows.map { "- \($0.name)\($0.isAtWork ? " (at work)" : ""): \($0.topicsText)" }.joined(separator: "\n") + "\n"
        }
        let events = stream.rows.isEmpty ? recentEvents.rows : Array(stream.rows.prefix(Self.eventLimit))
        out += "\n## Events (newest first)\n\n"
        if events.isEmpty {
            out += "No events.\n"
        } else {
            if !stream.rows.isEmpty { out += stream.countText + "\n\n" }
            out += events.map { e in
                "- \(e.idText) \(e.timeText) `\(e.topic)`" + (e.hat.map { " [\($0)]" } ?? "") + (e.preview.isEmpty ? "" : ": " + escape(e.preview))
            }.joined(separator: "\n") + "\n"
        }
        out += "\n---\nExported from Ralph Mobile at \(exportedAt).\n"
        return out
    }

    /// Keeps text from turning into Markdown it is not (a leading `#`, list marker or quote).
    func escape(_ text: String) -> String {
        guard let first = text.first, "#>-*+".contains(first) else { return text }
        return "\\" + text
    }
}
