import RalphAPI

extension DiffPreview {
    /// The diffs of the files the tool call `name` with `input` would change (see ``changes(tool:input:)``).
    public func preview(tool name: String, input: JSONValue) -> [FileDiff] {
        changes(tool: name, input: input).map(\.diff)
    }

    /// The diffs of the files a patch would change (see ``changes(patch:path:)``).
    public func preview(patch: String, path: String? = nil) -> [FileDiff] {
        changes(patch: patch, path: path).map(\.diff)
    }

    /// The files the tool call `name` with `input` would change: Claude Code's `Write`, `Edit` and `MultiEdit`; Codex's
    /// `apply_patch` (its input the patch, or an object holding it), a shell command running `apply_patch`, or a
    /// Codex approval's `changes` map (`{path: {add|delete|update: …}}`) or a `fileChange` item's `changes` list. Empty for
    /// any other tool.
    public func changes(tool name: String, input: JSONValue) -> [Change] {
        if ClaudeEdit.toolNames.contains(name) { return [claudeChange(tool: name, input: input)] }
        if let changes = input.objectValue?["changes"]?.objectValue { return codexChanges(changes) }
        if let changes = input.objectValue?["changes"]?.arrayValue { return codexItemChanges(changes) }
        if let patch = CodexPatch.patchText(tool: name, input: input) { return self.changes(patch: patch) }
        return []
    }

    /// The files a patch would change: a Codex `apply_patch` patch (when it holds `*** Begin Patch`), else a unified
    /// diff, whose files are named by its `---`/`+++` headers or, without headers, by `path`.
    public func changes(patch: String, path: String? = nil) -> [Change] {
        var overlay = Overlay()
        if let text = CodexPatch.extract(from: patch) {
            do throws(DiffError) {
                return try CodexPatch(text).operations.map { codexChange($0, overlay: &overlay) }
            } catch {
                return [Change(diff: failure(path: path ?? "", kind: .update, error))]
            }
        }
        do throws(DiffError) {
            return try UnifiedPatch(patch).files.map { unifiedChange($0, path: path, overlay: &overlay) }
        } catch {
            return [Change(diff: failure(path: path ?? "", kind: .update, error))]
        }
    }

    // MARK: - Claude Code

    private func claudeChange(tool name: String, input: JSONValue) -> Change {
        let path: String
        do throws(DiffError) { path = try ClaudeEdit.filePath(input) } catch { return Change(diff: failure(path: "", kind: .update, error)) }
        var overlay = Overlay()
        return change(path, overlay: &overlay) { before throws(DiffError) in
            switch before {
            case .binary: return before
            case .missing: return snapshot(try ClaudeEdit.after(tool: name, input: input, before: nil, path: path))
            case .text(let text): return snapshot(try ClaudeEdit.after(tool: name, input: input, before: text, path: path))
            }
        }
    }

    // MARK: - Patches

    /// What earlier operations of one patch made of its files (absolute path → content), so that a later operation on
    /// the same file starts from there.
    struct Overlay {
        var files: [String: Snapshot] = [:]
    }

    func codexChange(_ operation: CodexPatch.Operation, overlay: inout Overlay) -> Change {
        switch operation {
        case .add(let path, let content):
            var result = change(path, overlay: &overlay) { _ in snapshot(content) }
            if result.before != nil, result.before != .missing, result.diff.error == nil { result.diff.note = "the file already exists: the patch replaces it" }
            return result
        case .delete(let path):
            return change(path, overlay: &overlay) { before throws(DiffError) in
                if before == .missing { throw .fileMissing(path) }
                return .missing
            }
        case .update(let path, let moveTo, let chunks):
            return change(path, moveTo: moveTo, overlay: &overlay) { before throws(DiffError) in
                switch before {
                case .missing: throw .fileMissing(path)
                case .binary: return before
                case .text(let text): return snapshot(try CodexPatch.apply(chunks, to: text))
                }
            }
        }
    }

    private func unifiedChange(_ file: UnifiedPatch.File, path: String?, overlay: inout Overlay) -> Change {
        let old = file.oldPath.flatMap { $0 == UnifiedDiff.devNull ? nil : $0 }
        let new = file.newPath.flatMap { $0 == UnifiedDiff.devNull ? nil : $0 }
        guard let source = old ?? new ?? path else {
            return Change(diff: failure(path: "", kind: .update, .malformedPatch("it names no file", line: nil)))
        }
        let moveTo = old != nil && new != nil && old != new ? new : nil
        return change(source, moveTo: moveTo, overlay: &overlay) { before throws(DiffError) in
            switch before {
            case .binary: return before
            case .missing where !file.isAdded: throw .fileMissing(source)
            case .text where file.isAdded: throw .fileExists(source)
            case .missing, .text:
                let current = if case .text(let text) = before { TextLines(text) } else { TextLines(lines: []) }
                let after = try file.apply(to: current)
                return file.isDeleted && after.lines.isEmpty ? .missing : snapshot(after.text)
            }
        }
    }

    // MARK: - One file

    /// Reads `path` (from `overlay` when an earlier operation of the same patch changed it), computes its new content
    /// with `edit`, and diffs the two; an error of either becomes the diff's ``FileDiff/error``.
    func change(
        _ path: String, moveTo: String? = nil, overlay: inout Overlay, edit: (Snapshot) throws(DiffError) -> Snapshot
    ) -> Change {
        let located: (root: RootDirectory, path: String)
        switch locate(path) {
        case .success(let value): located = value
        case .failure(let error): return Change(diff: failure(path: path, movePath: moveTo, kind: moveTo == nil ? .update : .move, error))
        }
        var destination: String?
        if let moveTo {
            switch locate(moveTo) {
            case .success(let value): destination = value.path
            case .failure(let error): return Change(diff: failure(path: path, movePath: moveTo, kind: .move, error), absolutePath: located.path)
            }
        }
        let read = overlay.files[located.path].map { Result<Snapshot, DiffError>.success($0) } ?? self.read(located.path, in: located.root, named: path)
        let before: Snapshot
        switch read {
        case .success(let value): before = value
        case .failure(let error):
            return Change(diff: failure(path: path, movePath: moveTo, kind: moveTo == nil ? .update : .move, error), absolutePath: located.path)
        }
        let after: Snapshot
        do throws(DiffError) {
            after = try edit(before)
        } catch {
            let kind: FileDiff.Kind = moveTo != nil ? .move : before == .missing ? .add : .update
            return Change(diff: failure(path: path, movePath: moveTo, kind: kind, error), absolutePath: located.path, before: before)
        }
        if let destination {
            overlay.files[located.path] = .missing
            overlay.files[destination] = after
        } else {
            overlay.files[located.path] = after
        }
        let diff = diff(path: path, movePath: moveTo, before: before, after: after)
        return Change(diff: diff, absolutePath: located.path, absoluteMovePath: destination, before: before, after: after)
    }
}

extension DiffPreview.Change {
    init(diff: FileDiff, absolutePath: String? = nil, before: DiffPreview.Snapshot? = nil) {
        self.init(diff: diff, absolutePath: absolutePath, absoluteMovePath: nil, before: before, after: nil)
    }
}
