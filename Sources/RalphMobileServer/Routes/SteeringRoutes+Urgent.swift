import AgentRunner
import Foundation
import Hummingbird
import NIOPosix
import RalphAPI
import RalphFiles

/// `POST /api/sessions/{id}/steer`: for the next iteration (`urgent` false) or the current one (`urgent: true`).
///
/// - A run started here in RPC mode gets ralph's RPC `guidance` or `steer` command, and the answer waits for ralph's
///   `guidance_ack` (up to ``acknowledgementWait``; after that `202` with words, since the command was sent).
/// - Any other run gets next-iteration guidance as a `human.guidance` line in its events file (as ralph-api's
///   `robot.guidance` does). Its urgent steer writes `.ralph/urgent-steer.json` only when the server runs with
///   `--experimental-urgent-steer`, because ralph does not document that file as an interface; otherwise `409`.
extension SteeringRoutes {
    static let acknowledgementWait: Duration = .seconds(10)

    func steerNowOrNext(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let body = try await request.decode(as: SteerRequest.self, context: context)
        let message = try TextLimit.steering.freeText(body.message, field: "message")
        let snapshot = try await lookup.run(context.parameters.get("id") ?? "")
        let (answer, status) = try await steer(message, urgent: body.urgent ?? false, snapshot: snapshot)
        return JSONResponse.make(answer, status: status)
    }

    /// Delivers a steer (`urgent`) or next-iteration guidance to a run, as the route describes; the answer and its status.
    func steer(_ message: String, urgent: Bool, snapshot: RunSnapshot) async throws -> (SteerResponse, HTTPResponse.Status) {
        if let channel = supervisor.rpcChannel(sessionID: snapshot.id), channel.telemetry.connected {
            try await checkConfined(snapshot)
            return try await steerOverRPC(channel, message: message, urgent: urgent)
        }
        let date = Date()
        guard urgent else {
            let id = try await events.append(topic: "human.guidance", payload: .string(message), to: snapshot, at: date)
            return (SteerResponse(status: "delivered", deliveredAt: Timestamp.format(date), id: id.description, appliesTo: "next", via: "events_file"), .ok)
        }
        guard experimentalUrgentSteer else {
            throw APIError.conflict(
                "an urgent steer reaches only runs this server started in ralph's RPC mode, and session \(snapshot.id) is not one "
                    + "(started elsewhere, before a server restart, or with --no-ralph-rpc); steer without urgent for the next iteration, "
                    + "or start the server with --experimental-urgent-steer to write .ralph/urgent-steer.json (ralph reads it but does not document it)"
            )
        }
        guard snapshot.isLive else { throw APIError.notRunning("session \(snapshot.id) is not running; an urgent steer needs a live iteration") }
        try await writeUrgentSteer(message, stateDirectory: snapshot.location.stateDirectory, root: snapshot.location.root)
        return (
            SteerResponse(
                status: "written", deliveredAt: Timestamp.format(date), id: "", appliesTo: "current", via: "urgent_steer_file",
                note: "experimental: ralph refuses the agent's next emit once with this text, so it lands in the current iteration; no acknowledgement comes"
            ), .ok
        )
    }

    private func steerOverRPC(_ channel: RpcChannel, message: String, urgent: Bool) async throws -> (SteerResponse, HTTPResponse.Status) {
        let (command, appliesTo) = urgent ? ("steer", "current") : ("guidance", "next")
        let date = Date()
        let outcome: RpcChannel.Outcome?
        do {
            outcome = try await channel.send(command, ["message": message], acknowledgedAs: appliesTo, timeout: Self.acknowledgementWait)
        } catch {
            throw APIError(error)
        }
        let sent = Timestamp.format(date)
        switch outcome {
        case .acknowledged(let ack):
            return (SteerResponse(status: "acknowledged", deliveredAt: sent, id: "", appliesTo: ack.appliesTo, via: "rpc", acknowledgement: ack.message), .ok)
        case .accepted:
            return (SteerResponse(status: "accepted", deliveredAt: sent, id: "", appliesTo: appliesTo, via: "rpc"), .ok)
        case .refused(let reason):
            throw APIError.conflict("ralph did not take the \(command): \(reason)")
        case nil:
            let seconds = Self.acknowledgementWait.components.seconds
            return (
                SteerResponse(
                    status: "sent", deliveredAt: sent, id: "", appliesTo: appliesTo, via: "rpc",
                    note: "ralph did not acknowledge the \(command) within \(seconds) s; it was sent and may still apply to the \(appliesTo) iteration"
                ), .accepted
            )
        }
    }

    /// ralph writes what an RPC command asks into the run's files (guidance into the events file, a steer into
    /// `.ralph/urgent-steer.json`), so the server asks only while those are inside the run's root, reached without
    /// links, as its own events writer requires: a run whose events file or `.ralph` was linked out is refused.
    func checkConfined(_ snapshot: RunSnapshot) async throws {
        let (file, root) = (snapshot.location.file, snapshot.location.root)
        let problem = try await NIOThreadPool.singleton.runIfActive { () -> APIError? in
            do throws(ConfinementError) {
                guard let status = try RootDirectory(path: root).status(file, links: .refused), status.isRegularFile else {
                    return .notRunning("the run's events file is gone")
                }
                return nil
            } catch {
                return APIError(error, doing: "steer ralph, which writes into the run's events file")
            }
        }
        if let problem { throw problem }
    }

    /// Adds `message` to the run's `.ralph/urgent-steer.json` (a steer not yet taken is kept), atomically and within the
    /// run's root.
    private func writeUrgentSteer(_ message: String, stateDirectory: String, root: String) async throws {
        let file = stateDirectory + "/urgent-steer.json"
        let result = try await NIOThreadPool.singleton.runIfActive { () -> Result<Void, APIError> in
            let directory = RootDirectory(path: root)
            do throws(ConfinementError) {
                let existing = try directory.readFile(file, limit: 1 << 20)
                let steer = UrgentSteer.adding(message, to: existing.map { Data($0.text.utf8) })
                let data: Data
                do {
                    data = try WireJSON.encode(steer)
                } catch {
                    return .failure(.internalError("cannot encode the urgent steer: \(error)"))
                }
                try directory.writeAtomically(data, to: file)
                return .success(())
            } catch {
                return .failure(APIError(error, doing: "write .ralph/urgent-steer.json"))
            }
        }
        if case .failure(let error) = result { throw error }
    }
}
