import Foundation
import RalphAPI

/// ralph's runtime tasks, `.ralph/agent/tasks.jsonl`: one JSON object per line
/// (`id, title, description?, key?, status, priority, blocked_by, loop_id?, created, started?, closed?`).
///
/// Reads take a shared `flock` on the sidecar `tasks.jsonl.lock`, changes an exclusive one for the whole
/// read-modify-write, as ralph does, so neither side loses the other's update. Fields this code does not know
/// (newer ralph versions add some) and lines it cannot parse are written back unchanged. Every file is opened under the
/// workspace's ``RootDirectory``: a `tasks.jsonl` (or `.ralph`, or `.ralph/agent`) that links out of the root is
/// refused (``StoreError/refused(_:)``) before anything is locked or written. Blocking: call it from a thread pool.
public struct TaskStore: Sendable {
    public enum StoreError: Error, Equatable, CustomStringConvertible {
        case notFound(String)
        case invalid(String)
        case io(String)
        /// The file, or a directory on its way, leads out of the workspace root.
        case refused(ConfinementError)

        public var description: String {
            switch self {
            case .notFound(let id): "no task with id '\(id)'"
            case .invalid(let why): why
            case .io(let why): why
            case .refused(let error): error.description
            }
        }

        init(_ error: ConfinementError) {
            self = error.isRefusal ? .refused(error) : .io(error.description)
        }
    }

    /// One line of the file: a task, or text kept as it was.
    enum Line {
        case task(JSONObject)
        case other(String)
    }

    /// The tasks file.
    public let path: String
    /// The root the workspace lies in, which every file is opened from.
    public let root: RootDirectory
    /// ralph's lock sidecar, `tasks.jsonl.lock`.
    public var lockPath: String { path + ".lock" }

    /// The store of a workspace under `root`.
    public init(workspace: String, root: RootDirectory) {
        self.init(path: RalphLayout(workspace: workspace).tasks, root: root)
    }

    /// The store of the tasks file `path` under `root`.
    public init(path: String, root: RootDirectory) {
        self.path = path
        self.root = root
    }

    /// Every task, in file order.
    public func load() throws(StoreError) -> [TaskItem] {
        // A read must not create anything (a new .ralph/ would make the directory look like a ralph workspace).
        guard try exists() else { return [] }
        return try locked(exclusive: false) { () throws(StoreError) -> [TaskItem] in
            try readLines().compactMap { line in
                if case .task(let object) = line { return Self.item(object) }
                return nil
            }
        }
    }

    /// Runs `body` under ralph's lock on the file (shared to read, exclusive to change), any failure a ``StoreError``.
    private func locked<T>(exclusive: Bool, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        do {
            return try FileLock.withLock(lockPath, in: root, exclusive: exclusive, body)
        } catch let error as StoreError {
            throw error
        } catch let error as ConfinementError {
            throw StoreError(error)
        } catch {
            throw .io("\(error)")
        }
    }

    /// Whether the file exists; refuses one that leads out of the root.
    func exists() throws(StoreError) -> Bool {
        do throws(ConfinementError) {
            return try root.status(path) != nil
        } catch {
            throw StoreError(error)
        }
    }

    /// Adds a task as `ralph tools task add` would; returns it.
    public func add(title: String, description: String?, priority: Int, blockedBy: [String], loopID: String?, now: Date = Date()) throws(StoreError) -> TaskItem {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalid("title cannot be empty") }
        guard (1...5).contains(priority) else { throw .invalid("priority must be between 1 and 5") }
        var members: [(key: String, value: JSONValue)] = [("id", ""), ("title", .string(trimmed))]
        if let description, !description.isEmpty { members.append(("description", .string(description))) }
        members.append(("status", "open"))
        members.append(("priority", .int(priority)))
        members.append(("blocked_by", .array(blockedBy.map { .string($0) })))
        if let loopID { members.append(("loop_id", .string(loopID))) }
        members.append(("created", .string(Timestamp.formatRalph(now))))
        var object = JSONObject(members)
        try modify { lines in
            // ralph's id scheme can repeat within a second; take the next free one.
            let taken = Set(lines.compactMap { line -> String? in
                if case .task(let o) = line { return o["id"]?.stringValue }
                return nil
            })
            var id = Self.newID(now: now)
            var bump = now
            while taken.contains(id) {
                bump = bump.addingTimeInterval(0.000_001)
                id = Self.newID(now: bump)
            }
            object["id"] = .string(id)
            lines.append(.task(object))
        }
        return Self.item(object)!
    }

    /// Sets a task's status (`open`, `in_progress`, `closed`, `failed`); closing or failing records `closed`, starting
    /// records `started` once.
    public func setStatus(id: String, status: String, now: Date = Date()) throws(StoreError) -> TaskItem {
        let status = status.lowercased()
        guard TaskItem.statuses.contains(status) else {
            throw .invalid("invalid status '\(status)', must be one of: \(TaskItem.statuses.joined(separator: ", "))")
        }
        var updated: JSONObject?
        try modify { lines in
            for index in lines.indices {
                guard case .task(var object) = lines[index], object["id"]?.stringValue == id else { continue }
                object["status"] = .string(status)
                if status == "closed" || status == "failed" { object["closed"] = .string(Timestamp.formatRalph(now)) }
                if status == "in_progress", object["started"] == nil { object["started"] = .string(Timestamp.formatRalph(now)) }
                lines[index] = .task(object)
                updated = object
                return
            }
        }
        guard let updated, let item = Self.item(updated) else { throw .notFound(id) }
        return item
    }

    /// Read-modify-write under the exclusive lock.
    func modify(_ change: (inout [Line]) -> Void) throws(StoreError) {
        _ = try exists()
        try locked(exclusive: true) { () throws(StoreError) in
            var lines = try readLines()
            change(&lines)
            let text = lines.map { line -> String in
                switch line {
                case .task(let object): JSONWriter.string(.object(object))
                case .other(let raw): raw
                }
            }.joined(separator: "\n")
            do throws(ConfinementError) {
                try root.writeAtomically(Data((text.isEmpty ? "" : text + "\n").utf8), to: path)
            } catch {
                throw StoreError(error)
            }
        }
    }

    func readLines() throws(StoreError) -> [Line] {
        let file: RootDirectory.FileContent?
        do throws(ConfinementError) {
            file = try root.readFile(path, limit: 64 << 20)
        } catch {
            throw StoreError(error)
        }
        guard let text = file?.text else { return [] }
        return text.split(whereSeparator: \.isNewline).map { raw in
            if case .object(let object)? = try? JSONParser.parse(String(raw)), object["id"]?.stringValue != nil { return .task(object) }
            return .other(String(raw))
        }
    }

    /// The API view of a task line; nil when a required field is missing.
    static func item(_ o: JSONObject) -> TaskItem? {
        guard let id = o["id"]?.stringValue, let title = o["title"]?.stringValue, let status = o["status"]?.stringValue else { return nil }
        let blocked: [String]
        if case .array(let list)? = o["blocked_by"] { blocked = list.compactMap(\.stringValue) } else { blocked = [] }
        return TaskItem(
            id: id, title: title, description: o["description"]?.stringValue, status: status, priority: o["priority"]?.intValue ?? 3,
            blockedBy: blocked, loopId: o["loop_id"]?.stringValue, createdAt: o["created"]?.stringValue ?? "", updatedAt: o["closed"]?.stringValue,
            key: o["key"]?.stringValue, startedAt: o["started"]?.stringValue
        )
    }

    /// `task-<unix seconds>-<4 hex of the microseconds>`, as ralph makes them.
    static func newID(now: Date) -> String {
        let seconds = Int(now.timeIntervalSince1970)
        let micros = Int((now.timeIntervalSince1970 - Double(seconds)) * 1_000_000)
        return "task-\(seconds)-" + String(format: "%04x", micros % 0x10000)
    }

    /// The API's order: priority (1 first), then newest first.
    public static func sorted(_ tasks: [TaskItem]) -> [TaskItem] {
        tasks.sorted { ($0.priority, $1.createdAt, $0.id) < ($1.priority, $0.createdAt, $1.id) }
    }
}
