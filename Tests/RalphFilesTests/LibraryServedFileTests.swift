import Foundation
import RalphAPI
import Testing

@testable import RalphFiles

/// Which files the content routes serve: `configFile` and `promptFile` of `PresetLibrary`.
@Suite("Library: the files the config and prompt routes serve")
struct LibraryServedFileTests {
    @Test("configFile serves presets/*.yml|yaml and ralph.yml as canonical paths; promptFile serves prompts/**/*.md")
    func servedFilesAllowed() {
        let w = LibraryPresetWorkspace([
            "presets/feature.yml": "# f\n", "presets/other.yaml": "", "ralph.yml": "", "prompts/a.md": "a", "prompts/sub/b.md": "b",
        ])
        let served: [(LibraryPresetWorkspace.Kind, request: String, file: String)] = [
            (.config, "presets/feature.yml", "presets/feature.yml"),
            (.config, "presets/other.yaml", "presets/other.yaml"),
            (.config, "ralph.yml", "ralph.yml"),
            (.config, "./presets//feature.yml", "presets/feature.yml"),
            (.config, "presets/../ralph.yml", "ralph.yml"),
            (.prompt, "prompts/a.md", "prompts/a.md"),
            (.prompt, "prompts/sub/b.md", "prompts/sub/b.md"),
        ]
        for (kind, request, file) in served {
            #expect(w.servedPath(kind, request) == .success(w.ws + "/" + file), "\(request)")
        }
    }

    @Test("ralph.yaml is served when it is the workspace config")
    func servedRalphYaml() {
        let w = LibraryPresetWorkspace(["ralph.yaml": ""])
        #expect(w.servedPath(.config, "ralph.yaml") == .success(w.ws + "/ralph.yaml"))
    }

    @Test("files of another kind are refused as wrongKind, even when they exist")
    func servedFilesWrongKind() {
        let w = LibraryPresetWorkspace([
            "README.md": "", "other.yml": "", "secret.txt": "", "presets/notes.txt": "", "presets/feature.yml": "", "prompts/a.md": "",
            "prompts/x.txt": "", ".ralph/agent/tasks.jsonl": "",
        ])
        for path in ["README.md", "other.yml", "secret.txt", "presets/notes.txt", "prompts/a.md", ".ralph/agent/tasks.jsonl", "presets"] {
            #expect(w.isWrongKind(.config, path), "config \(path)")
        }
        for path in ["README.md", "presets/feature.yml", "prompts/x.txt", "secret.txt", "ralph.yml", "prompts", "PROMPT.md"] {
            #expect(w.isWrongKind(.prompt, path), "prompt \(path)")
        }
        // A directory whose name looks right is not a file.
        w.root.dir("ws/presets/dir.yml")
        w.root.dir("ws/prompts/dir.md")
        #expect(w.isWrongKind(.config, "presets/dir.yml"))
        #expect(w.isWrongKind(.prompt, "prompts/dir.md"))
    }

    @Test("paths escaping the workspace with .. are refused, even when they stay inside the roots")
    func servedFilesDotDot() {
        let w = LibraryPresetWorkspace()
        w.root.file("other/presets/x.yml", "")
        w.root.file("other/prompts/x.md", "")
        w.root.file("ralph.yml", "")

        for path in ["../other/presets/x.yml", "presets/../../other/presets/x.yml", "../ralph.yml", "../../../../../../etc/passwd.yml", "..", "presets/../.."] {
            #expect(w.isOutside(.config, path), "\(path)")
        }
        for path in ["../other/prompts/x.md", "prompts/../../other/prompts/x.md", "prompts/../../../etc/x.md"] {
            #expect(w.isOutside(.prompt, path), "\(path)")
        }
    }

    @Test("absolute paths are refused, even to the workspace's own files")
    func servedFilesAbsolute() {
        let w = LibraryPresetWorkspace(["ralph.yml": "", "prompts/a.md": ""])
        #expect(w.isOutside(.config, w.ws + "/ralph.yml"))
        #expect(w.isOutside(.config, "/etc/passwd"))
        #expect(w.isOutside(.prompt, w.ws + "/prompts/a.md"))
        #expect(w.isOutside(.prompt, "//prompts/a.md"))
    }

    @Test("symbolic links are followed: outside the workspace is refused, to a file of the wrong kind is refused, inside and of the right kind is served")
    func servedFilesSymlinks() {
        let w = LibraryPresetWorkspace(["secret.txt": "secret", "ralph.yml": "", "prompts/real.md": "real"])
        w.root.file("other/presets/x.yml", "")
        let outsideYml = w.outside.file("secret.yml", "token: x")
        let outsideMd = w.outside.file("secret.md", "secret")
        let outsideDir = w.outside.dir("promptdir")
        w.outside.file("promptdir/leak.md", "secret")

        w.link("presets/out.yml", to: outsideYml)
        w.link("presets/sibling.yml", to: w.root.path + "/other/presets/x.yml")
        w.link("presets/relative-out.yml", to: "../../other/presets/x.yml")
        w.link("presets/leak.yml", to: w.ws + "/secret.txt")
        w.link("prompts/out.md", to: outsideMd)
        w.link("prompts/linked", to: outsideDir)
        w.link("prompts/config.md", to: w.ws + "/ralph.yml")
        w.link("prompts/alias.md", to: "real.md")
        w.link("presets/alias.yml", to: "../ralph.yml")

        for path in ["presets/out.yml", "presets/sibling.yml", "presets/relative-out.yml"] {
            #expect(w.isOutside(.config, path), "\(path)")
        }
        for path in ["prompts/out.md", "prompts/linked/leak.md"] {
            #expect(w.isOutside(.prompt, path), "\(path)")
        }
        #expect(w.isWrongKind(.config, "presets/leak.yml"))
        #expect(w.isWrongKind(.prompt, "prompts/config.md"))
        #expect(w.servedPath(.prompt, "prompts/alias.md") == .success(w.ws + "/prompts/real.md"))
        #expect(w.servedPath(.config, "presets/alias.yml") == .success(w.ws + "/ralph.yml"))
    }

    @Test("missing files and dangling links are notFound")
    func servedFilesMissing() {
        let w = LibraryPresetWorkspace()
        w.link("presets/dangling.yml", to: w.ws + "/presets/nothing.yml")
        let missing: [(LibraryPresetWorkspace.Kind, String)] = [
            (.config, "presets/missing.yml"), (.config, "ralph.yml"), (.config, "presets/dangling.yml"), (.prompt, "prompts/missing.md"),
            (.prompt, "prompts/sub/missing.md"),
        ]
        for (kind, path) in missing {
            #expect(w.serve(kind, path) == .failure(.notFound(path)), "\(path)")
        }
    }

    @Test("NUL and control characters are refused as invalidCharacters")
    func servedFilesControlCharacters() {
        let w = LibraryPresetWorkspace(["presets/a.yml": "", "prompts/a.md": ""])
        let invalid: [(LibraryPresetWorkspace.Kind, [String])] = [
            (.config, ["presets/a\u{0}.yml", "presets/a.yml\u{0}.yml", "presets/a\n.yml", "presets/\u{1B}[31m.yml", "presets/a\u{7F}.yml"]),
            (.prompt, ["prompts/a\u{0}.md", "prompts/a\r.md", "prompts/\t.md"]),
        ]
        for (kind, paths) in invalid {
            for path in paths {
                #expect(w.serve(kind, path) == .failure(.invalidCharacters(path)), "\(path.debugDescription)")
            }
        }
    }

    @Test("very long paths are refused as tooLong without touching the disk, and an empty path is refused")
    func servedFilesLongAndEmpty() {
        let w = LibraryPresetWorkspace()
        let longConfig = "presets/" + String(repeating: "a", count: 5000) + ".yml"
        let longPrompt = "prompts/" + String(repeating: "ab/", count: 1700) + "x.md"
        #expect(w.serve(.config, longConfig) == .failure(.tooLong))
        #expect(w.serve(.prompt, longPrompt) == .failure(.tooLong))
        #expect(w.serve(.prompt, String(repeating: "é", count: 5000)).isFailure)

        for kind in [LibraryPresetWorkspace.Kind.config, .prompt] {
            #expect(w.serve(kind, "").isFailure)
        }
    }
}

extension Result {
    fileprivate var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
