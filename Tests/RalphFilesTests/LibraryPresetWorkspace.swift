import Foundation
import RalphAPI

@testable import RalphFiles

/// A workspace `ws/` inside a root directory, with a sibling directory inside the same root and a second temporary
/// directory outside every root; and what `PresetLibrary` lists and serves from it, so the tests say only what
/// differs.
struct LibraryPresetWorkspace {
    /// Which content route a path is asked of.
    enum Kind {
        case config, prompt
    }

    let root = TempDir()
    let outside = TempDir()
    var ws: String { root.path + "/ws" }
    var roots: WorkspaceRoots { WorkspaceRoots([root.path]) }

    /// Writes each file (path relative to the workspace → text), in order.
    init(_ files: KeyValuePairs<String, String> = [:]) {
        root.dir("ws")
        for (relative, text) in files { file(relative, text) }
    }

    @discardableResult
    func file(_ relative: String, _ text: String = "") -> String { root.file("ws/" + relative, text) }

    func link(_ relative: String, to destination: String) {
        let path = ws + "/" + relative
        try! FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: destination)
    }

    var presets: [PresetItem] { PresetLibrary.presets(in: ws, roots: roots) }
    var configs: [ConfigItem] { PresetLibrary.configs(in: ws, roots: roots) }
    var hats: [HatItem] { PresetLibrary.hats(in: ws, roots: roots) }
    var prompts: [PromptItem] { PresetLibrary.prompts(in: ws, roots: roots) }

    /// What the content route of `kind` serves for `path`.
    func serve(_ kind: Kind, _ path: String) -> Result<PresetLibrary.ServedFile, WorkspaceRoots.PathError> {
        switch kind {
        case .config: PresetLibrary.configFile(path, workspace: ws, roots: roots)
        case .prompt: PresetLibrary.promptFile(path, workspace: ws, roots: roots)
        }
    }

    /// The canonical path served for `path`, or the refusal.
    func servedPath(_ kind: Kind, _ path: String) -> Result<String, WorkspaceRoots.PathError> { serve(kind, path).map(\.path) }

    /// Whether `path` is refused as being of the wrong kind, naming the requested path.
    func isWrongKind(_ kind: Kind, _ path: String) -> Bool {
        if case .failure(.wrongKind(let p, _)) = serve(kind, path) { return p == path }
        return false
    }

    /// Whether `path` is refused as leading outside the roots.
    func isOutside(_ kind: Kind, _ path: String) -> Bool {
        if case .failure(.outsideRoots) = serve(kind, path) { return true }
        return false
    }
}
