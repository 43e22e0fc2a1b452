import Foundation
import RalphAPI

@testable import RalphFiles

/// Lines of a tasks.jsonl as ralph writes them (compact serde_json, fields in struct order), plus lines that are not
/// tasks ralph-mobile knows how to read.
enum LibraryTaskFixture {
    static let closed = #"{"id":"task-1769046733-f668","title":"Create greeter CLI example in examples/greeter.rs","status":"closed","priority":2,"blocked_by":[],"created":"2026-01-22T01:52:13.390766+00:00","closed":"2026-01-22T01:52:48.891656+00:00"}"#
    static let open = #"{"id":"task-1769046800-0001","title":"Open one","description":"Line one\nline \"two\" ✓","key":"k-1","status":"open","priority":1,"blocked_by":["task-1769046733-f668"],"loop_id":"primary-20260205-083922","created":"2026-01-22T01:53:20.000001+00:00","future_field":{"nested":[1,2.5,null,true,"x/y"]},"labels":["é","日本"],"score":0.1}"#
    static let malformed = #"this is not json {"id":"task-x"}"#
    static let inProgress = #"{"id":"task-1769046900-00ff","title":"Working","status":"in_progress","priority":3,"blocked_by":[],"created":"2026-01-22T01:55:00.500000+00:00","started":"2026-01-22T01:56:00.000000+00:00"}"#
    static let failed = #"{"id":"task-1769047000-abcd","title":"Broke","status":"failed","priority":5,"blocked_by":["task-1769046900-00ff","task-1769046733-f668"],"created":"2026-01-22T01:56:40.000000+00:00","closed":"2026-01-22T02:00:00.000000+00:00"}"#
    static let noID = #"{"title":"an object without an id","status":"open"}"#
    static let noTitle = #"{"id":"task-1769047100-0002","status":"open","priority":3,"blocked_by":[],"created":"2026-01-22T01:58:20.000000+00:00"}"#
    static let truncated = #"{"id":"task-1769047200-0003","title":"cut off by a crash","sta"#

    /// 1769046733.5 s is exact in binary: 500000 µs, 500000 mod 65536 = 0xa120.
    static let addedAt = Date(timeIntervalSince1970: 1_769_046_733.5)

    static let lines = [closed, open, malformed, inProgress, failed, noID, noTitle, truncated]
    static var text: String { lines.joined(separator: "\n") + "\n" }
}

/// A temporary workspace and its store; keep the value alive for the whole test (the directory goes with it).
struct LibraryTaskWorkspace {
    let tmp = TempDir()
    let store: TaskStore

    init() {
        store = TaskStore(workspace: tmp.path, root: RootDirectory(path: tmp.path))
    }
}

/// A workspace whose tasks.jsonl holds `text` (none when nil).
func libraryTaskWorkspace(_ text: String? = nil) -> LibraryTaskWorkspace {
    let w = LibraryTaskWorkspace()
    if let text { w.tmp.file(".ralph/agent/tasks.jsonl", text) }
    return w
}

/// The lines of a file as written, the empty one after the final newline included.
func fileLines(_ path: String) -> [String] {
    let text = FileSystem.readText(path, limit: 64 << 20) ?? ""
    return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

/// A tasks.jsonl line parsed as the JSON object it must be, members in written order.
func jsonObject(_ line: String) throws -> JSONObject {
    guard case .object(let object) = try JSONParser.parse(line) else { throw LibraryTaskTestError(what: "not an object: \(line)") }
    return object
}

struct LibraryTaskTestError: Error, CustomStringConvertible {
    let what: String
    var description: String { what }
}

/// Whether `text` contains a match of the regular expression `pattern`.
func matchesRegex(_ text: String, _ pattern: String) -> Bool {
    text.range(of: pattern, options: .regularExpression) != nil
}

extension TaskStore {
    /// Adds a task with only a title (and a priority), as most tests need.
    @discardableResult
    func addTask(_ title: String, priority: Int = 3, now: Date = Date()) throws(StoreError) -> TaskItem {
        try add(title: title, description: nil, priority: priority, blockedBy: [], loopID: nil, now: now)
    }
}
