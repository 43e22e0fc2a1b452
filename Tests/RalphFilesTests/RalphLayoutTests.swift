import Foundation
import RalphFiles
import Testing

@Suite("ralph's on-disk layout")
struct RalphLayoutTests {
    @Test("every ralph path of a workspace comes from the layout")
    func paths() {
        let layout = RalphLayout(workspace: "/w")
        #expect(layout.stateDirectory == "/w/.ralph")
        #expect(layout.loopRegistry == "/w/.ralph/loops.json")
        #expect(layout.mergeQueue == "/w/.ralph/merge-queue.jsonl")
        #expect(layout.currentLoopID == "/w/.ralph/current-loop-id")
        #expect(layout.currentEvents == "/w/.ralph/current-events")
        #expect(layout.memories == "/w/.ralph/agent/memories.md")
        #expect(layout.tasks == "/w/.ralph/agent/tasks.jsonl")
        #expect(layout.scratchpad == "/w/.ralph/agent/scratchpad.md")
        #expect(layout.worktree("bright-maple") == "/w/.worktrees/bright-maple")
        #expect(layout.presets == "/w/presets" && layout.prompts == "/w/prompts" && layout.git == "/w/.git")
    }

    @Test("the scratchpad is under agent/ in .ralph, directly in the legacy .agent")
    func scratchpad() {
        #expect(RalphLayout.scratchpad(stateDirectory: "/w/.ralph", layout: .ralph) == "/w/.ralph/agent/scratchpad.md")
        #expect(RalphLayout.scratchpad(stateDirectory: "/w/.agent", layout: .agent) == "/w/.agent/scratchpad.md")
    }

    @Test("HEAD: a branch, detached, or unknown")
    func parseHead() {
        #expect(GitHead.parse("ref: refs/heads/main\n") == .branch("main"))
        #expect(GitHead.parse("ref: refs/heads/feature/x") == .branch("feature/x"))
        #expect(GitHead.parse("0123456789abcdef0123456789abcdef01234567\n") == .detached)
        #expect(GitHead.parse("ref: refs/tags/v1") == .detached)
    }

    @Test("the branch of a repository, of a worktree through its .git file, and none outside the root")
    func currentBranch() throws {
        let tmp = TempDir()
        tmp.file("repo/.git/HEAD", "ref: refs/heads/main\n")
        tmp.file("repo/.git/worktrees/loop/HEAD", "ref: refs/heads/ralph/loop\n")
        tmp.file("repo/.worktrees/loop/.git", "gitdir: ../../.git/worktrees/loop\n")
        tmp.file("plain/readme", "no repository")
        let root = RootDirectory(path: tmp.path)
        #expect(GitHead.currentBranch(of: tmp.path + "/repo", root: root) == "main")
        #expect(GitHead.currentBranch(of: tmp.path + "/repo/.worktrees/loop", root: root) == "ralph/loop")
        #expect(GitHead.state(of: tmp.path + "/plain", root: root) == .unknown)

        // A worktree whose .git points out of the root is not followed.
        tmp.file("escape/.git", "gitdir: /etc\n")
        #expect(GitHead.state(of: tmp.path + "/escape", root: root) == .unknown)
    }
}
