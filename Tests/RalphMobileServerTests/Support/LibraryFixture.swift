import Foundation
import RalphAPI
import RalphFiles

#if canImport(Glibc)
import Glibc
#endif

/// A workspace written in ralph's real formats: presets with hats (and a broken one), prompts, a ralph.yml with a skills
/// directory, skills, memories with sections, tasks with every status, a loop registry with live and dead pids, and a
/// merge queue with every event type.
enum LibraryFixture {
    /// A pid that is certainly dead: a reaped child's.
    static let deadPID: Int32 = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try! p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }()

    static func make(_ ws: String) {
        Fixture.write(
            """
            # Feature Development Preset
            event_loop:
              max_iterations: 50
            hats:
              builder:
                name: "🏗️ Builder"
                description: Implements one task with tests
                triggers: [build.task]
                publishes: [build.done, build.blocked]
              reviewer:
                name: Reviewer
                description: Reviews builds
                triggers: [review.request]
                publishes: [review.approved, review.changes_requested]

            """, to: ws + "/presets/feature.yml")
        Fixture.write("# Bugfix\nhats:\n  fixer:\n    name: Fixer\n    description: Fixes\n    triggers: [bug.found]\n", to: ws + "/presets/bugfix.yaml")
        Fixture.write("hats: [unclosed\n", to: ws + "/presets/broken.yml")
        Fixture.write("not yaml at all", to: ws + "/presets/notes.txt")
        Fixture.write("# Write the docs\nEverything public.\n", to: ws + "/prompts/docs.md")
        Fixture.write("\n\nRefactor the payment module so that it uses the new gateway API everywhere\n", to: ws + "/prompts/sub/refactor.md")
        Fixture.write(
            """
            # Project config
            event_loop:
              max_iterations: 25
            skills:
              dirs: [skills]
              overrides:
                robot-interaction:
                  enabled: false
            hats:
              planner:
                name: Planner
                description: Plans the work
                triggers: [plan.start]

            """, to: ws + "/ralph.yml")
        Fixture.write("---\nname: deploy\ndescription: How to deploy\ntags: [ops]\nhats: [builder]\n---\n# Deploy\nRun make deploy.\n", to: ws + "/skills/deploy/SKILL.md")
        Fixture.write("# Style\nUse tabs.\n", to: ws + "/skills/style.md")
        Fixture.write(
            """
            # Memories

            ## Patterns

            ### mem-1737372000-a1b2
            > Use Result types for fallible calls
            <!-- tags: swift, errors | created: 2026-01-20 -->

            ## Decisions

            ### mem-1737372100-00ff
            > SQLite over Postgres
            > for the embedded store
            <!-- tags: storage | created: 2026-01-21 -->

            ## Fixes

            ## Context

            """, to: ws + "/.ralph/agent/memories.md")
        let tasks = [
            #"{"id":"task-1769046733-f668","title":"Greeter CLI","status":"closed","priority":2,"blocked_by":[],"created":"2026-01-22T01:52:13.390766+00:00","closed":"2026-01-22T01:52:48.891656+00:00"}"#,
            #"{"id":"task-1769046800-0001","title":"Open task","description":"details","status":"open","priority":1,"blocked_by":[],"loop_id":"primary-20260122-015200","created":"2026-01-22T01:53:20+00:00"}"#,
            #"{"id":"task-1769046900-0002","title":"In progress","status":"in_progress","priority":3,"blocked_by":["task-1769046800-0001"],"created":"2026-01-22T01:55:00+00:00","started":"2026-01-22T01:56:00+00:00","owner_hat_id":"builder"}"#,
            #"{"id":"task-1769047000-0003","title":"Failed one","status":"failed","priority":5,"blocked_by":[],"created":"2026-01-22T01:56:40+00:00","closed":"2026-01-22T02:00:00+00:00"}"#,
            "this line is not json and must survive",
        ]
        Fixture.write(tasks.joined(separator: "\n") + "\n", to: ws + "/.ralph/agent/tasks.jsonl")
        // A worktree loop is alive only while its worktree exists (ralph 2.10); dead-loop's does not.
        Fixture.write("", to: ws + "/.worktrees/bright-maple/README.md")
        Fixture.write(
            """
            {
              "loops": [
                {"id": "bright-maple", "pid": \(getpid()), "started": "2026-02-05T08:39:22.067718291Z", "prompt": "side quest", "worktree_path": "\(ws)/.worktrees/bright-maple", "workspace": "\(ws)/.worktrees/bright-maple"},
                {"id": "loop-1769046733-a3f2", "pid": \(getpid()), "started": "2026-02-05T08:00:00Z", "prompt": "primary", "workspace": "\(ws)"},
                {"id": "dead-loop", "pid": \(deadPID), "started": "2026-02-01T00:00:00Z", "prompt": "gone", "worktree_path": "\(ws)/.worktrees/dead-loop", "workspace": "\(ws)"}
              ]
            }
            """, to: ws + "/.ralph/loops.json")
        let queue = [
            #"{"ts":"2026-02-05T09:00:00Z","loop_id":"quiet-river","event":{"type":"queued","prompt":"waiting"}}"#,
            #"{"ts":"2026-02-05T09:01:00Z","loop_id":"busy-bee","event":{"type":"queued","prompt":"merging now"}}"#,
            #"{"ts":"2026-02-05T09:02:00Z","loop_id":"busy-bee","event":{"type":"merging","pid":4242}}"#,
            #"{"ts":"2026-02-05T09:03:00Z","loop_id":"done-deal","event":{"type":"queued","prompt":"merged one"}}"#,
            #"{"ts":"2026-02-05T09:04:00Z","loop_id":"done-deal","event":{"type":"merging","pid":4243}}"#,
            #"{"ts":"2026-02-05T09:05:00Z","loop_id":"done-deal","event":{"type":"merged","commit":"abc1234"}}"#,
            #"{"ts":"2026-02-05T09:06:00Z","loop_id":"tricky","event":{"type":"queued","prompt":"conflicts"}}"#,
            #"{"ts":"2026-02-05T09:07:00Z","loop_id":"tricky","event":{"type":"needs_review","reason":"merge conflict in main.swift"}}"#,
            #"{"ts":"2026-02-05T09:08:00Z","loop_id":"nope","event":{"type":"queued","prompt":"abandoned"}}"#,
            #"{"ts":"2026-02-05T09:09:00Z","loop_id":"nope","event":{"type":"discarded","reason":null}}"#,
        ]
        Fixture.write(queue.joined(separator: "\n") + "\n", to: ws + "/.ralph/merge-queue.jsonl")
    }
}
