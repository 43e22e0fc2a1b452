import Foundation
import RalphAPI

extension RunSupervisor {
    /// A ralph started by this server.
    public struct StartedRun: Codable, Sendable, Equatable {
        /// Id answered before the run file existed; accepted by every session route.
        public var pendingID: String
        /// The session id, once ralph created its events file.
        public var runID: String?
        public var pid: Int
        public var startTicks: UInt64?
        public var workingDirectory: String
        public var root: String
        public var log: String
        public var startedAt: String
        public var arguments: [String]
        /// How the process ended, when it has.
        public var exit: String?

        enum CodingKeys: String, CodingKey {
            case pid, root, log, arguments, exit
            case pendingID = "pending_id"
            case runID = "run_id"
            case startTicks = "start_ticks"
            case workingDirectory = "working_directory"
            case startedAt = "started_at"
        }
    }

    /// A run this server paused (SIGSTOP).
    public struct PausedRun: Codable, Sendable, Equatable {
        var id: String
        var pid: Int
        var startTicks: UInt64?
        var pausedAt: String

        enum CodingKeys: String, CodingKey {
            case id, pid
            case startTicks = "start_ticks"
            case pausedAt = "paused_at"
        }
    }

    /// A stop asked of a run here, kept so the run shows which stop happened after it ended.
    public struct StopRecord: Codable, Sendable, Equatable {
        var id: String
        var request: StopRequest

        enum CodingKeys: String, CodingKey {
            case id, request
        }
    }

    /// What `<data-dir>/state/runs.json` holds: what must survive a restart.
    struct Persisted: Codable, Equatable {
        var started: [StartedRun]
        var paused: [PausedRun]
        /// Stops asked here (absent in files written before graceful stops existed).
        var stops: [StopRecord] = []

        init(started: [StartedRun], paused: [PausedRun], stops: [StopRecord] = []) {
            self.started = started
            self.paused = paused
            self.stops = stops
        }

        enum CodingKeys: String, CodingKey {
            case started, paused, stops
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            started = try c.decode([StartedRun].self, forKey: .started)
            paused = try c.decode([PausedRun].self, forKey: .paused)
            stops = try c.decodeIfPresent([StopRecord].self, forKey: .stops) ?? []
        }
    }
}
