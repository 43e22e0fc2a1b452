import Foundation
import FuzzSupport
import RalphAPI
import RalphFiles

/// libFuzzer's entry point. The input is a YAML file: a preset, a workspace's `ralph.yml`, a skill's front matter.
///
/// It goes through every reader of such files, each of which parses it with ``RalphYAML``: ``RalphConfigValidator``
/// (the config import), ``WorkspaceConfig``, and, written into a scratch workspace, ``PresetLibrary`` (presets,
/// configs, hats) and ``SkillRegistry`` (the input as `ralph.yml`, and as a skill file with front matter).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPresetYAML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = inputBuffer(data, size)
    let text = String(decoding: input, as: UTF8.self)
    _ = RalphConfigValidator.problems(in: text)
    _ = WorkspaceConfig.parse(yaml: text, path: nil)
    _ = PresetLibrary.description(ofText: text)
    _ = PresetLibrary.preview(ofText: text)

    let scratch = Scratch.shared
    let bytes = Data(buffer: input)
    scratch.write(bytes, to: scratch.workspace + "/ralph.yml")
    scratch.write(bytes, to: scratch.workspace + "/presets/fuzz.yml")
    scratch.write(bytes, to: scratch.skillWorkspace + "/skills/fuzz.md")
    _ = PresetLibrary.presets(in: scratch.workspace, roots: scratch.roots)
    _ = PresetLibrary.configs(in: scratch.workspace, roots: scratch.roots)
    _ = PresetLibrary.hats(in: scratch.workspace, roots: scratch.roots)
    _ = SkillRegistry.skills(workspace: scratch.workspace, roots: scratch.roots)
    _ = SkillRegistry.skills(workspace: scratch.skillWorkspace, roots: scratch.roots)
    return 0
}

/// Two workspaces in a temporary directory, made once per process and removed at exit: `workspace` gets the input
/// as its `ralph.yml` and as a preset; `skillWorkspace`'s fixed `ralph.yml` reads skills from `skills/`, where the
/// input is a skill file.
struct Scratch: Sendable {
    static let shared = Scratch()

    let root: String
    let workspace: String
    let skillWorkspace: String
    let roots: WorkspaceRoots

    private init() {
        // In memory where there is a tmpfs: three files are written per input, and on a disk that is most of the time.
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory()
        var template = Array((base + "/ralph-fuzz-yaml-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }), let real = realpath(made, nil) else {
            fatalError("cannot make a scratch directory")
        }
        root = String(cString: real)
        free(real)
        workspace = root + "/workspace"
        skillWorkspace = root + "/skills-workspace"
        roots = WorkspaceRoots([root])
        let manager = FileManager.default
        for dir in [workspace + "/presets", skillWorkspace + "/skills"] {
            try! manager.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        write(Data("skills:\n  dirs: [skills]\n".utf8), to: skillWorkspace + "/ralph.yml")
        Self.removeAtExit = root
        atexit { if let root = Scratch.removeAtExit { try? FileManager.default.removeItem(atPath: root) } }
    }

    /// The directory to remove when the process exits.
    nonisolated(unsafe) private static var removeAtExit: String?

    func write(_ data: Data, to path: String) {
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            fatalError("cannot write \(path): \(error)")
        }
    }
}
