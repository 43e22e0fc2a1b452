import RalphAPI

/// What Claude Code's file tools would make of a file, computed from the tool's input and the file as it is now, the way
/// the tools apply it:
/// - `Write {file_path, content}`: the file becomes `content` (created when missing).
/// - `Edit {file_path, old_string, new_string, replace_all?}`: `old_string` must occur; more than once is refused unless
///   `replace_all` is true, which replaces every occurrence. An empty `old_string` creates a missing (or empty) file.
/// - `MultiEdit {file_path, edits: [{old_string, new_string, replace_all?}]}`: the edits in order, each on the result of
///   the one before; the first that fails is named.
///
/// Text is matched by its UTF-8 bytes, exactly (Claude's own fallback to straight quotes for curly ones is not made).
public enum ClaudeEdit {
    /// The file tools, by the name Claude Code gives them.
    public static let toolNames: Set<String> = ["Write", "Edit", "MultiEdit"]

    /// One `old_string` → `new_string` replacement of an Edit or a MultiEdit.
    public struct Replacement: Sendable, Hashable {
        public var oldString: String
        public var newString: String
        public var replaceAll: Bool

        public init(oldString: String, newString: String, replaceAll: Bool = false) {
            self.oldString = oldString
            self.newString = newString
            self.replaceAll = replaceAll
        }
    }

    /// The `file_path` of a file tool's input.
    public static func filePath(_ input: JSONValue) throws(DiffError) -> String {
        guard let path = input.objectValue?["file_path"]?.stringValue else { throw .missingField("file_path") }
        return path
    }

    /// The file's content after the tool `name` ran with `input` on `before` (nil when the file does not exist).
    public static func after(tool name: String, input: JSONValue, before: String?, path: String) throws(DiffError) -> String {
        switch name {
        case "Write":
            guard let content = input.objectValue?["content"]?.stringValue else { throw .missingField("content") }
            return content
        case "Edit":
            return try apply([replacement(input)], to: before, path: path, numbered: false)
        case "MultiEdit":
            guard let edits = input.objectValue?["edits"]?.arrayValue else { throw .missingField("edits") }
            var replacements: [Replacement] = []
            for edit in edits { replacements.append(try replacement(edit)) }
            return try apply(replacements, to: before, path: path, numbered: true)
        default:
            throw .missingField("file_path")
        }
    }

    /// The replacement an Edit input (or one of a MultiEdit's edits) describes.
    static func replacement(_ value: JSONValue) throws(DiffError) -> Replacement {
        guard let object = value.objectValue else { throw .missingField("old_string") }
        guard let old = object["old_string"]?.stringValue else { throw .missingField("old_string") }
        guard let new = object["new_string"]?.stringValue else { throw .missingField("new_string") }
        return Replacement(oldString: old, newString: new, replaceAll: object["replace_all"]?.boolValue ?? false)
    }

    /// Applies `replacements` in order to `before` (nil: the file does not exist); `numbered` names the failing one.
    public static func apply(_ replacements: [Replacement], to before: String?, path: String, numbered: Bool) throws(DiffError) -> String {
        var current = before
        for (index, replacement) in replacements.enumerated() {
            current = try apply(replacement, to: current, path: path, edit: numbered ? index + 1 : nil)
        }
        return current ?? ""
    }

    private static func apply(_ replacement: Replacement, to current: String?, path: String, edit: Int?) throws(DiffError) -> String {
        if TextLines.same(replacement.oldString, replacement.newString) { throw .noChange(edit: edit) }
        guard let current else {
            guard replacement.oldString.isEmpty else { throw .fileMissing(path) }
            return replacement.newString
        }
        if replacement.oldString.isEmpty {
            guard current.isEmpty else { throw .fileExists(path) }
            return replacement.newString
        }
        let text = Array(current.utf8)
        let needle = Array(replacement.oldString.utf8)
        let found = occurrences(of: needle, in: text)
        if found.isEmpty { throw .textNotFound(edit: edit) }
        if found.count > 1, !replacement.replaceAll { throw .textNotUnique(edit: edit, occurrences: found.count) }
        let replaced = replacement.replaceAll ? found : [found[0]]
        var result: [UInt8] = []
        result.reserveCapacity(text.count + replaced.count * max(0, replacement.newString.utf8.count - needle.count))
        var cursor = 0
        for start in replaced {
            result += text[cursor..<start]
            result += replacement.newString.utf8
            cursor = start + needle.count
        }
        result += text[cursor...]
        return String(decoding: result, as: UTF8.self)
    }

    /// The starts of the non-overlapping occurrences of `needle` in `haystack`, left to right (`needle` not empty).
    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> [Int] {
        guard !needle.isEmpty, needle.count <= haystack.count else { return [] }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                var found: [Int] = []
                var index = 0
                let last = hay.count - pin.count
                let first = pin[0]
                while index <= last {
                    if hay[index] == first, memoryEqual(hay, at: index, pin) {
                        found.append(index)
                        index += pin.count
                    } else {
                        index += 1
                    }
                }
                return found
            }
        }
    }

    private static func memoryEqual(_ hay: UnsafeBufferPointer<UInt8>, at start: Int, _ pin: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 1
        while offset < pin.count {
            if hay[start + offset] != pin[offset] { return false }
            offset += 1
        }
        return true
    }
}
