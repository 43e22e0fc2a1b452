import RalphFiles
import Testing

@Suite("ralph's on-disk names")
struct RalphLayoutNamesTests {
    @Test("paths inside a state directory it was given")
    func stateDirectoryPaths() {
        #expect(RalphLayout.stateDirectory(of: "/w", layout: .ralph) == "/w/.ralph")
        #expect(RalphLayout.stateDirectory(of: "/w", layout: .agent) == "/w/.agent")
        #expect(RalphLayout.currentEvents(stateDirectory: "/w/.ralph") == "/w/.ralph/current-events")
        #expect(RalphLayout.loopLock(stateDirectory: "/w/.ralph") == "/w/.ralph/loop.lock")
        #expect(RalphLayout.legacyEvents(stateDirectory: "/w/.agent") == "/w/.agent/events.jsonl")
        #expect(RalphLayout(workspace: "/w").loopLock == "/w/.ralph/loop.lock")
        #expect(RalphLayout(workspace: "/w").configFiles == ["/w/ralph.yml", "/w/ralph.yaml"])
        #expect(RalphLayout.runFileName(stamp: "20260205-083922") == "events-20260205-083922.jsonl")
    }

    @Test("a worktree's repository, and which workspaces a workspace covers")
    func worktrees() {
        #expect(RalphLayout(workspace: "/repo/.worktrees/loop").repositoryOfWorktree == RalphLayout(workspace: "/repo"))
        #expect(RalphLayout(workspace: "/repo").repositoryOfWorktree == nil)
        let repo = RalphLayout(workspace: "/repo")
        #expect(repo.covers("/repo") && repo.covers("/repo/.worktrees/loop"))
        #expect(!repo.covers("/repo/sub") && !repo.covers("/repo2") && !repo.covers("/repo/.worktrees"))
    }
}
