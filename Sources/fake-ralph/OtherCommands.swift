import Foundation
import RalphAPI
import RalphFiles
import RalphSimulator
import Synchronization
import Yams

#if canImport(Glibc)
import Glibc
#endif

/// `ralph loops merge <id>` / `ralph loops discard <id> -y` / `ralph tools skill load <name>`, as far as files go.
func otherCommand(_ args: [String]) -> Never {
    let cwd = FileManager.default.currentDirectoryPath
    switch (args.first, args.dropFirst().first) {
    case ("loops", "merge"?), ("loops", "discard"?):
        let merging = args[1] == "merge"
        guard args.count >= 3 else { fail("error: the following required arguments were not provided:\n  <LOOP_ID>", code: 2) }
        let id = args[2]
        if !merging && !args.contains("-y") && !args.contains("--yes") { fail("Error: refusing to discard \(id) without confirmation (use -y)", code: 1) }
        let registryPath = RalphLayout(workspace: cwd).loopRegistry
        var loops: [[String: Any]] = []
        if let data = FileManager.default.contents(atPath: registryPath), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            loops = object["loops"] as? [[String: Any]] ?? []
        }
        let worktree = RalphLayout(workspace: cwd).worktree(id)
        let entry = loops.first { $0["id"] as? String == id }
        guard entry != nil || FileManager.default.fileExists(atPath: worktree) else { fail("Error: No loop found matching '\(id)'", code: 1) }
        if let pid = entry?["pid"] as? Int, kill(pid_t(pid), 0) == 0 { fail("Error: loop \(id) is still running (pid \(pid))", code: 1) }
        func queue(_ event: [String: Any]) {
            let line: [String: Any] = ["ts": Timestamp.now(), "loop_id": id, "event": event]
            let data = try! JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])
            try? EventFileAppender.append(line: Array(data), to: RalphLayout(workspace: cwd).mergeQueue, create: true)
        }
        if merging {
            queue(["type": "merging", "pid": Int(getpid())])
            queue(["type": "merged", "commit": String(format: "%08x", UInt32.random(in: 0...UInt32.max))])
        } else {
            queue(["type": "discarded", "reason": "User requested discard"])
        }
        try? FileManager.default.removeItem(atPath: worktree)
        loops.removeAll { $0["id"] as? String == id }
        try? JSONSerialization.data(withJSONObject: ["loops": loops], options: [.prettyPrinted]).write(to: URL(fileURLWithPath: registryPath))
        print(merging ? "Merged loop \(id)" : "Discarded loop \(id)")
        exit(0)
    case ("tools", "skill"?) where args.count >= 4 && args[2] == "load":
        let name = args[3]
        guard SkillRegistry.builtins.contains(name) else { fail("Error: Skill '\(name)' not found", code: 1) }
        print(SkillRegistry.wrap(name: name, body: "# \(name)\n\nBuilt-in skill text (from the fake-ralph double)."))
        exit(0)
    default:
        fail("error: unrecognized subcommand '\(args.first ?? "")'\n\nUsage: ralph <COMMAND>\n\nFor more information, try '--help'.", code: 2)
    }
}
