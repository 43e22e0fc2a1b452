import Foundation

/// Mirrors of the RalphMobile client's models (reference §8.2, written as it declares them: snake_case keys, required
/// fields non-optional, unknown keys ignored, dates as strings): what must keep decoding.
enum ClientModels {
    struct Config: Decodable { let path: String; let name: String; let description: String }
    struct Configs: Decodable { let configs: [Config] }
    struct Prompt: Decodable { let path: String; let name: String; let preview: String }
    struct Prompts: Decodable { let prompts: [Prompt] }
    struct Hat: Decodable { let name: String; let description: String; let emoji: String }
    struct Hats: Decodable { let hats: [Hat] }
    struct Skill: Decodable {
        let name: String; let description: String; let tags: [String]; let hats: [String]; let backends: [String]; let auto_inject: Bool; let source: String
    }
    struct Skills: Decodable { let skills: [Skill]; let count: Int }
    struct Task: Decodable {
        let id: String; let title: String; let description: String?; let status: String; let priority: UInt8; let blocked_by: [String]; let loop_id: String?
        let created_at: String; let updated_at: String?
    }
    struct Tasks: Decodable { let tasks: [Task]; let total: Int }
    struct Loop: Decodable { let id: String; let status: String; let prompt: String; let pid: UInt32; let started_at: String; let worktree_path: String?; let workspace: String }
    struct Loops: Decodable { let loops: [Loop] }
    struct QueueItem: Decodable { let id: String; let status: String; let prompt: String; let worktree_path: String?; let queued_at: String; let merged_at: String? }
    struct Queue: Decodable { let pending: [QueueItem]; let completed: [QueueItem] }
    struct Memories: Decodable { let content: String; let last_modified: String? }
    struct Usage: Decodable { let usage_percent: Double; let used_gb: Double; let total_gb: Double }
    struct Metrics: Decodable {
        struct CPU: Decodable { let usage_percent: Double; let cores: Int }
        struct Network: Decodable { let download_mbps: Double; let upload_mbps: Double }
        let cpu: CPU; let memory: Usage; let disk: Usage; let network: Network
    }
    struct Process: Decodable { let name: String; let cpu_percent: Double; let memory_mb: Double; let pid: UInt32 }
    struct Processes: Decodable { let processes: [Process] }

    // Sessions and steering (packages/RalphShared/Session.swift and the app's API client's response types).
    struct Session: Decodable {
        let id: String; let iteration: Int; let total: Int?; let hat: String?; let elapsed_secs: Int?; let mode: String?; let started_at: String?
        let status: String?; let trigger_event: String?; let publishes: [String]?
    }
    struct Started: Decodable { let id: String; let status: String }
    struct Emitted: Decodable { let success: Bool; let topic: String; let timestamp: String }
    /// pause, resume, steer and stop: the app reads `status` when it is there.
    struct Tolerant: Decodable { let status: String? }
    struct Scratchpad: Decodable { let content: String }
    struct Iteration: Decodable { let number: UInt32; let hat: String?; let started_at: String; let duration_secs: UInt64? }
    struct Iterations: Decodable { let iterations: [Iteration]; let total: Int }

    // Library.
    struct FileContent: Decodable { let path: String; let content: String; let content_type: String }
    struct Preset: Decodable { let name: String; let path: String; let description: String }
    struct Presets: Decodable { let presets: [Preset] }
    struct SkillContent: Decodable { let name: String; let content: String }
    struct ExportedConfig: Decodable { let content: String; let filename: String }
    struct ImportedConfig: Decodable { let status: String; let path: String }
    struct MemoriesExport: Decodable { let content: String; let exported_at: String; let filename: String }

    // Loops.
    struct SpawnedLoop: Decodable { let id: String; let worktree_path: String; let status: String }
    struct Operation: Decodable { let success: Bool; let message: String }

    // Robot.
    struct Question: Decodable {
        let id: String; let question_text: String; let session_id: String; let asked_at: String; let timeout_at: String; let iteration: UInt32; let hat: String?
    }
    struct Questions: Decodable { let questions: [Question] }
    struct ResponseAck: Decodable { let success: Bool; let question_id: String; let delivered_at: String }
    struct GuidanceAck: Decodable { let success: Bool; let session_id: String; let delivered_at: String }
}
