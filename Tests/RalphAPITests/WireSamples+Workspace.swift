import Foundation
import Testing

import RalphAPI

extension WireSamples {
    static let task = TaskItem(
        id: "task-1", title: "Write the docs", description: "README section", status: "open", priority: 2,
        blockedBy: ["task-0"], loopId: "loop-1", createdAt: ts, updatedAt: later, key: "write-docs", startedAt: ts
    )
    static let loop = LoopInfo(
        id: "loop-1", status: "running", prompt: "Add a flag", pid: 4243, startedAt: ts, worktreePath: "/work/proj/.worktrees/loop-1",
        workspace: "proj"
    )
    static let merge = MergeQueueItem(
        id: "loop-1", status: "merged", state: "done", prompt: "Add a flag", worktreePath: "/work/proj/.worktrees/loop-1",
        queuedAt: ts, mergedAt: later, updatedAt: later, commit: "ab5a086", reason: nil
    )
    static let skill = SkillItem(
        name: "swift", description: "Swift rules", tags: ["lang"], hats: ["builder"], backends: ["claude"], autoInject: true,
        source: "workspace", path: "/work/proj/.ralph/skills/swift.md"
    )
    static let hat = HatItem(
        name: "Builder", id: "builder", description: "Writes code", emoji: "🔨", color: "#c71585", triggers: ["build.task"],
        publishes: ["build.done"], sources: ["preset:default"]
    )
    static let memory = MemoryEntry(id: "mem-1", type: "pattern", content: "Use WireJSON", tags: ["json"], created: "2026-02-05")
    static let key = APIKeyInfo(id: "k-1", name: "phone", role: .operator, createdAt: ts)

    /// Workspace, library, host, health, auth, errors and the JSON value.
    static let workspace: [WireSample] = [
        .codable(task),
        .codable(TasksResponse(tasks: [task], total: 1)),
        .codable(CreateTaskRequest(title: "Write the docs", description: "README", priority: 1, blockedBy: ["task-0"])),
        .codable(UpdateTaskRequest(status: "closed")),
        .codable(loop),
        .codable(LoopsResponse(loops: [loop])),
        .codable(SpawnLoopRequest(prompt: "Add a flag", configPath: "ralph.yml", baseBranch: "main")),
        .codable(SpawnLoopResponse(id: "loop-2", worktreePath: "/work/proj/.worktrees/loop-2", status: "started", sessionId: "s-2", pid: 4244)),
        .codable(OperationResponse(success: true, message: "merged")),
        .codable(merge),
        .codable(MergeQueueResponse(pending: [], completed: [merge])),
        .codable(skill),
        .codable(SkillsResponse(skills: [skill], count: 1)),
        .codable(SkillContentResponse(name: "swift", content: "# Swift")),
        // Library.
        .codable(ConfigItem(path: "ralph.yml", name: "ralph", description: "default")),
        .codable(ConfigsResponse(configs: [ConfigItem(path: "presets/tdd.yml", name: "tdd", description: "")])),
        .codable(FileContentResponse(path: "ralph.yml", content: "cli:\n  backend: claude\n", contentType: "text/yaml")),
        .codable(PromptItem(path: "PROMPT.md", name: "PROMPT", preview: "# Task")),
        .codable(PromptsResponse(prompts: [PromptItem(path: "p.md", name: "p", preview: "")])),
        .codable(PresetItem(name: "tdd", path: "presets/tdd.yml", description: "red, green, refactor")),
        .codable(PresetsResponse(presets: [PresetItem(name: "a", path: "a.yml", description: "")])),
        .codable(hat),
        .codable(HatsResponse(hats: [hat])),
        .codable(ConfigExportResponse(content: "cli: {}\n", filename: "ralph.yml")),
        .codable(ConfigImportRequest(content: "cli: {}\n")),
        .codable(ConfigImportResponse(status: "imported", path: "ralph.yml", backup: "ralph.yml.bak")),
        .codable(memory),
        .codable(MemoriesContent(content: "## Patterns\n", lastModified: ts, entries: [memory])),
        .codable(MemoriesUpdate(content: "## Fixes\n")),
        .codable(MemoriesExport(content: "## Patterns\n", exportedAt: ts, filename: "memories.md")),
        // Host and health.
        .codable(HostMetrics(
            cpu: .init(usagePercent: 12.5, cores: 2, loadAverage: [0.5, 0.25, 0.125]),
            memory: .init(usagePercent: 40.5, usedGb: 1.5, totalGb: 3.75),
            disk: .init(usagePercent: 60.25, usedGb: 30.5, totalGb: 50.5, path: "/"),
            network: .init(downloadMbps: 1.5, uploadMbps: 0.25), sampledAt: ts, intervalSecs: 1.5
        )),
        .codable(HostProcess(name: "swift-frontend", cpuPercent: 99.5, memoryMb: 512.5, pid: 7)),
        .codable(HostProcessesResponse(processes: [HostProcess(name: "ralph", cpuPercent: 0.5, memoryMb: 20.5, pid: 8)])),
        .codable(HealthResponse(
            status: "ok", version: RalphMobileVersion.current, timestamp: ts, protocolVersion: RalphMobileVersion.protocolVersion,
            capabilities: ["sessions", "chat"], authRequired: true,
            agents: [AgentInfo(name: "claude", command: "claude", version: "2.1.0", permissionModes: ["default"], error: nil)]
        )),
        // Auth and errors.
        .codable(key),
        .codable(APIKeyList(keys: [key, APIKeyInfo(id: "k-2", name: nil, role: .viewer, createdAt: ts)])),
        .codable(CreateAPIKeyRequest(role: .admin, name: "laptop")),
        .codable(CreatedAPIKey(key: key, secret: "rm_secret/with+slash")),
        .codable(LoginRequest(key: "rm_secret")),
        // Pairing a phone.
        .codable(CreatePairingRequest(role: .operator, name: "phone", url: "http://192.0.2.2:8080", expiresIn: 300)),
        .codable(CreatePairingRequest(role: .viewer), "role only"),
        .codable(CreatedPairing(
            code: "ABCD-EFGH-JKMN", url: "http://192.0.2.2:8080/pair#code=ABCD-EFGH-JKMN", role: .operator, name: "phone", expiresAt: later,
            qrSVG: "<svg xmlns=\"http://www.w3.org/2000/svg\"/>", warning: "the server listens on loopback only")),
        .codable(PairingExchangeRequest(code: "abcd efgh jkmn", login: true)),
        .codable(PairedDevice(key: key, secret: "rmk_0123", login: nil)),
        .codable(PairedDevice(key: key, secret: nil, login: WhoAmI(role: .operator, keyID: "k-1", authRequired: true, via: "cookie", expiresAt: later)), "logged in"),
        .codable(WhoAmI(role: .admin, keyID: "k-1", authRequired: true, via: "cookie", expiresAt: later)),
        .codable(ErrorResponse(prefix: .invalidPath, detail: "../etc/passwd")),
        .codable(ErrorResponse(prefix: .sessionNotFound, detail: nil), "no detail"),
        // The JSON value (objects with sorted keys: decoding sorts them, the written order is not kept by Codable).
        .codable(["a": [1, 2.5, "three", true, nil], "b": ["nested": ["deep": "x/y"]], "c": -7] as JSONValue),
    ]
        + WireSample.cases(Role.allCases)
}
