import Foundation
import Testing

@testable import RalphFiles

#if canImport(Glibc)
import Glibc
#endif

/// A root with a workspace, and a directory outside it holding a marked secret, with every kind of link between them.
struct ConfinementFixture {
    let root = TempDir()
    let outside = TempDir()
    let marker = "SECRET-\(UUID().uuidString)"
    var ws: String { root.path + "/ws" }

    init() {
        root.file("ws/ralph.yml", "inside: true\n")
        root.file("ws/prompts/a.md", "inside prompt\n")
        root.file("ws/.ralph/agent/memories.md", "inside memories\n")
        root.file("other/shared.md", "shared inside\n")
        outside.file("secret.md", marker + "\n")
        outside.file("dir/secret.md", marker + "\n")
        link("ws/prompts/out-absolute.md", outside.path + "/secret.md")
        link("ws/prompts/out-relative.md", "../../../" + (outside.path as NSString).lastPathComponent + "/secret.md")
        link("ws/prompts/out-dir", outside.path + "/dir")
        link("ws/prompts/in-relative.md", "a.md")
        link("ws/prompts/in-absolute.md", root.path + "/ws/prompts/a.md")
        link("ws/prompts/in-sibling.md", "../../other/shared.md")
        link("ws/prompts/in-dir", root.path + "/other")
        link("ws/prompts/up-and-back.md", "../../ws/prompts/a.md")
        link("ws/prompts/dangling-in.md", root.path + "/ws/prompts/nothing.md")
        link("ws/prompts/loop-a.md", "loop-b.md")
        link("ws/prompts/loop-b.md", "loop-a.md")
        link("ws/prompts/proc.md", "/proc/self/root/etc/hostname")
        link("ws/prompts/absolute-dotdot.md", root.path + "/ws/../../" + (outside.path as NSString).lastPathComponent + "/secret.md")
    }

    func link(_ relative: String, _ destination: String) {
        let path = root.path + "/" + relative
        try! FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: destination)
    }

    /// Every file under the outside directory with its content: must not change.
    func outsideSnapshot() -> [String: String] { outside.contents() }

    /// The root opened with `resolution`.
    func directory(_ resolution: RootDirectory.Resolution) -> RootDirectory { RootDirectory(path: root.path, resolution: resolution) }
}

@Suite("Confined opens: every file under a root is opened relative to the root's descriptor")
struct RootDirectoryTests {
    static let resolutions: [RootDirectory.Resolution] = [.automatic, .componentWalk]

    @Test("this kernel has openat2, so the two resolutions really differ")
    func kernelHasOpenat2() {
        let root = TempDir()
        #expect(RootDirectory(path: root.path).usesOpenat2, "openat2 missing: the automatic tests walk too")
        #expect(!RootDirectory(path: root.path, resolution: .componentWalk).usesOpenat2)
    }

    @Test("regular files are read through their descriptor; a missing one is nil", arguments: resolutions)
    func readsInside(resolution: RootDirectory.Resolution) throws {
        let f = ConfinementFixture()
        let root = f.directory(resolution)
        #expect(try root.readFile(f.root.path + "/ws/prompts/a.md")?.text == "inside prompt\n")
        #expect(try root.readFile("ws/prompts/a.md")?.text == "inside prompt\n")
        #expect(try root.readFile(f.root.path + "/ws/prompts/missing.md") == nil)
        #expect(try root.status(f.root.path + "/ws/prompts")?.isDirectory == true)
        #expect(try root.status(f.root.path)?.isDirectory == true)
    }

    @Test("paths outside the root, lexically or by .., are refused", arguments: resolutions)
    func refusesOutsidePaths(resolution: RootDirectory.Resolution) {
        let f = ConfinementFixture()
        let root = f.directory(resolution)
        #expect(throws: ConfinementError.outsideRoot(f.outside.path + "/secret.md")) { try root.readFile(f.outside.path + "/secret.md") }
        #expect(throws: ConfinementError.self) { try root.readFile(f.root.path + "-sibling/secret.md") }
        let up = "ws/../../" + (f.outside.path as NSString).lastPathComponent + "/secret.md"
        #expect(throws: ConfinementError.outsideRoot(up)) { try root.readFile(up) }
    }

    @Test("a link out of the root is refused, naming the link, whether absolute, relative, a directory or through ..", arguments: resolutions)
    func refusesLinksOut(resolution: RootDirectory.Resolution) {
        let f = ConfinementFixture()
        let root = f.directory(resolution)
        #expect(throws: ConfinementError.symbolicLinkOutside("ws/prompts/out-absolute.md")) { try root.readFile(f.ws + "/prompts/out-absolute.md") }
        #expect(throws: ConfinementError.symbolicLinkOutside("ws/prompts/out-relative.md")) { try root.readFile(f.ws + "/prompts/out-relative.md") }
        #expect(throws: ConfinementError.symbolicLinkOutside("ws/prompts/out-dir")) { try root.readFile(f.ws + "/prompts/out-dir/secret.md") }
        #expect(throws: ConfinementError.symbolicLinkOutside("ws/prompts/out-dir")) { try root.list(f.ws + "/prompts/out-dir") }
        #expect(throws: ConfinementError.symbolicLinkOutside("ws/prompts/proc.md")) { try root.readFile(f.ws + "/prompts/proc.md") }
        #expect(throws: ConfinementError.symbolicLinkOutside("ws/prompts/absolute-dotdot.md")) { try root.readFile(f.ws + "/prompts/absolute-dotdot.md") }
        #expect(throws: ConfinementError.symbolicLinkOutside("ws/prompts/out-absolute.md")) { try root.status(f.ws + "/prompts/out-absolute.md") }
    }

    @Test("links that stay inside the root are followed, absolute ones (as ralph makes in worktrees) included", arguments: resolutions)
    func followsLinksInside(resolution: RootDirectory.Resolution) throws {
        let f = ConfinementFixture()
        let root = f.directory(resolution)
        #expect(try root.readFile(f.ws + "/prompts/in-relative.md")?.text == "inside prompt\n")
        #expect(try root.readFile(f.ws + "/prompts/in-absolute.md")?.text == "inside prompt\n")
        #expect(try root.readFile(f.ws + "/prompts/in-sibling.md")?.text == "shared inside\n")
        #expect(try root.readFile(f.ws + "/prompts/in-dir/shared.md")?.text == "shared inside\n")
        #expect(try root.readFile(f.ws + "/prompts/up-and-back.md")?.text == "inside prompt\n")
        #expect(try root.readFile(f.ws + "/prompts/dangling-in.md") == nil)
        #expect(try root.readFileAndLocation(f.ws + "/prompts/in-absolute.md", limit: 1024)?.location == f.ws + "/prompts/a.md")
    }

    @Test("with links refused, any link is an error, inside the root or not", arguments: resolutions)
    func refusedLinks(resolution: RootDirectory.Resolution) {
        let f = ConfinementFixture()
        let root = f.directory(resolution)
        #expect(throws: ConfinementError.symbolicLink("ws/prompts/in-relative.md")) { try root.readFile(f.ws + "/prompts/in-relative.md", links: .refused) }
        #expect(throws: ConfinementError.symbolicLink("ws/prompts/in-dir")) { try root.readFile(f.ws + "/prompts/in-dir/shared.md", links: .refused) }
        #expect(throws: ConfinementError.self) { try root.readFile(f.ws + "/prompts/out-absolute.md", links: .refused) }
    }

    @Test("a loop of links is refused, not followed forever", arguments: resolutions)
    func linkLoops(resolution: RootDirectory.Resolution) {
        let f = ConfinementFixture()
        let root = f.directory(resolution)
        #expect(throws: ConfinementError.self) { try root.readFile(f.root.path + "/ws/prompts/loop-a.md") }
    }

    @Test("a listing reports links as links, and reads nothing through them", arguments: resolutions)
    func listing(resolution: RootDirectory.Resolution) throws {
        let f = ConfinementFixture()
        let root = f.directory(resolution)
        let entries = try #require(try root.list(f.root.path + "/ws/prompts"))
        let kinds = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.kind) })
        #expect(kinds["a.md"] == .file)
        #expect(kinds["out-dir"] == .symbolicLink && kinds["in-dir"] == .symbolicLink && kinds["out-absolute.md"] == .symbolicLink)
        #expect(try root.list(f.root.path + "/ws/nothing") == nil)
    }

    @Test("a FIFO is refused without blocking the reader", arguments: resolutions)
    func fifo(resolution: RootDirectory.Resolution) {
        let f = ConfinementFixture()
        mkfifo(f.root.path + "/ws/prompts/fifo.md", 0o644)
        let root = f.directory(resolution)
        #expect(throws: ConfinementError.notRegularFile("ws/prompts/fifo.md")) { try root.readFile(f.root.path + "/ws/prompts/fifo.md") }
    }

    @Test("atomic writes create directories, replace through an inside link keeping it, and refuse a link out changing nothing", arguments: resolutions)
    func writes(resolution: RootDirectory.Resolution) throws {
        let f = ConfinementFixture()
        let root = f.directory(resolution)
        let before = f.outsideSnapshot()
        try root.writeAtomically(Data("new\n".utf8), to: f.ws + "/deep/new/file.md")
        #expect(FileSystem.readText(f.ws + "/deep/new/file.md") == "new\n")
        try root.writeAtomically(Data("via link\n".utf8), to: f.ws + "/prompts/in-absolute.md")
        #expect(FileSystem.readText(f.ws + "/prompts/a.md") == "via link\n")
        #expect(FileSystem.status(f.ws + "/prompts/in-absolute.md", followSymlinks: false)?.isSymlink == true)
        #expect(throws: ConfinementError.symbolicLinkOutside("ws/prompts/out-absolute.md")) {
            try root.writeAtomically(Data("planted\n".utf8), to: f.ws + "/prompts/out-absolute.md")
        }
        #expect(throws: ConfinementError.symbolicLinkOutside("ws/prompts/out-dir")) {
            try root.writeAtomically(Data("planted\n".utf8), to: f.ws + "/prompts/out-dir/new.md")
        }
        #expect(throws: ConfinementError.symbolicLinkOutside("ws/prompts/out-dir")) { try root.makeDirectories(f.ws + "/prompts/out-dir/sub") }
        #expect(f.outsideSnapshot() == before)
        #expect(FileSystem.status(f.ws + "/prompts/out-absolute.md", followSymlinks: false)?.isSymlink == true)
    }

    @Test("appends go to the file itself, refuse any link on the way, and never create unless asked", arguments: resolutions)
    func appends(resolution: RootDirectory.Resolution) throws {
        let f = ConfinementFixture()
        let root = f.directory(resolution)
        let before = f.outsideSnapshot()
        #expect(throws: ConfinementError.notFound("ws/.ralph/events.jsonl")) { try root.append(Array("x\n".utf8), to: f.ws + "/.ralph/events.jsonl") }
        #expect(try root.append(Array("one\n".utf8), to: f.ws + "/.ralph/events.jsonl", create: true) == 0)
        #expect(try root.append(Array("two\n".utf8), to: f.ws + "/.ralph/events.jsonl") == 4)
        #expect(throws: ConfinementError.symbolicLink("ws/prompts/in-relative.md")) { try root.append(Array("x\n".utf8), to: f.ws + "/prompts/in-relative.md") }
        #expect(throws: ConfinementError.self) { try root.append(Array("x\n".utf8), to: f.ws + "/prompts/out-absolute.md", create: true) }
        #expect(throws: ConfinementError.self) { try root.append(Array("x\n".utf8), to: f.ws + "/prompts/out-dir/secret.md") }
        #expect(f.outsideSnapshot() == before)
        #expect(FileSystem.readText(f.ws + "/prompts/a.md") == "inside prompt\n")
    }

    /// What one open answered, comparable across resolutions.
    enum Outcome: Equatable {
        case read(String)
        case missing
        case refused(ConfinementError)
    }

    static func outcome(_ root: RootDirectory, _ path: String, links: RootDirectory.Links) -> Outcome {
        do {
            guard let file = try root.readFile(path, limit: 1 << 16, links: links) else { return .missing }
            return .read(file.text)
        } catch {
            return .refused(error)
        }
    }

    @Test("the component walk (kernels without openat2) answers exactly as openat2 does, for every path and link kind")
    func walkMatchesOpenat2() throws {
        let f = ConfinementFixture()
        let kernel = RootDirectory(path: f.root.path)
        let walk = RootDirectory(path: f.root.path, resolution: .componentWalk)
        try #require(kernel.usesOpenat2)
        var paths = ((try? FileManager.default.contentsOfDirectory(atPath: f.root.path + "/ws/prompts")) ?? []).map { "ws/prompts/" + $0 }
        paths += [
            "ws/prompts/out-dir/secret.md", "ws/prompts/in-dir/shared.md", "ws/prompts/in-dir/../../ws/ralph.yml", "ws/ralph.yml",
            "ws/.ralph/agent/memories.md", "ws/../other/shared.md", "..", "ws/../..", "ws/prompts/a.md/x", "missing/x.md",
            f.root.path + "/ws/ralph.yml", f.outside.path + "/secret.md", "ws/prompts", ".",
        ]
        #expect(paths.count > 25)
        for path in paths {
            for links in [RootDirectory.Links.withinRoot, .refused] {
                #expect(Self.outcome(kernel, path, links: links) == Self.outcome(walk, path, links: links), "\(path) \(links)")
            }
        }
    }
}
