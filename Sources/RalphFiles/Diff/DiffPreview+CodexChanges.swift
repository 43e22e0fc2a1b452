import RalphAPI

extension DiffPreview {
    /// The files of a Codex approval's `changes` map — path → `{"add": {"content"}}`, `{"delete": {…}}` or
    /// `{"update": {"unified_diff", "move_path"?}}` (or the same with a `"type"` field) — each diffed against the file as
    /// it is now: an update's unified diff is applied again to the current content.
    func codexChanges(_ changes: JSONObject) -> [Change] {
        var overlay = Overlay()
        return changes.members.map { member in
            let (kind, fields) = Self.codexChangeKind(member.value)
            switch kind {
            case "add":
                return codexChange(.add(path: member.key, content: fields["content"]?.stringValue ?? ""), overlay: &overlay)
            case "delete":
                return codexChange(.delete(path: member.key), overlay: &overlay)
            case "update":
                return codexUpdate(member.key, fields: fields, overlay: &overlay)
            default:
                let error = DiffError.missingField("add, delete or update for \(DiffError.shown(member.key))")
                return Change(diff: failure(path: member.key, kind: .update, error))
            }
        }
    }

    /// The files of a Codex `fileChange` item's `changes` list — `{path, kind, move_path?, diff}`, where `diff` is the
    /// new text of an added file and a hunk without headers for an update (what `codex app-server` announces before it
    /// asks to apply a patch) — each diffed against the file as it is now.
    func codexItemChanges(_ changes: [JSONValue]) -> [Change] {
        var overlay = Overlay()
        return changes.map { entry in
            let object = entry.objectValue ?? JSONObject()
            let path = object["path"]?.stringValue ?? ""
            let text = object["diff"]?.stringValue ?? ""
            switch object["kind"]?.stringValue ?? object["kind"]?.objectValue?["type"]?.stringValue {
            case "add":
                return codexChange(.add(path: path, content: text), overlay: &overlay)
            case "delete":
                return codexChange(.delete(path: path), overlay: &overlay)
            case "update":
                var fields = JSONObject([("unified_diff", .string(text))])
                if let move = object["move_path"]?.stringValue { fields["move_path"] = .string(move) }
                return codexUpdate(path, fields: fields, overlay: &overlay)
            default:
                return Change(diff: failure(path: path, kind: .update, .missingField("add, delete or update for \(DiffError.shown(path))")))
            }
        }
    }

    /// `("add" | "delete" | "update", its fields)` of one entry of the map.
    private static func codexChangeKind(_ value: JSONValue) -> (String, JSONObject) {
        guard let object = value.objectValue else { return ("", JSONObject()) }
        if let type = object["type"]?.stringValue { return (type, object) }
        for kind in ["add", "delete", "update"] {
            if let fields = object[kind]?.objectValue { return (kind, fields) }
        }
        return ("", object)
    }

    private func codexUpdate(_ path: String, fields: JSONObject, overlay: inout Overlay) -> Change {
        let moveTo = fields["move_path"]?.stringValue
        guard let text = fields["unified_diff"]?.stringValue else {
            return Change(diff: failure(path: path, movePath: moveTo, kind: .update, .missingField("unified_diff")))
        }
        let file: UnifiedPatch.File
        do throws(DiffError) {
            guard let first = try UnifiedPatch(text).files.first else { throw .malformedPatch("it has no @@ hunk", line: nil) }
            file = first
        } catch {
            return Change(diff: failure(path: path, movePath: moveTo, kind: moveTo == nil ? .update : .move, error))
        }
        return change(path, moveTo: moveTo, overlay: &overlay) { before throws(DiffError) in
            switch before {
            case .missing: throw .fileMissing(path)
            case .binary: return before
            case .text(let current): return snapshot(try file.apply(to: TextLines(current)).text)
            }
        }
    }
}
