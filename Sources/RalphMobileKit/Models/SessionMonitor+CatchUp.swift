import Foundation
import RalphAPI

extension SessionMonitor {
    /// Reads, once, the events written after the newest one shown, while no stream is open: for a monitor whose
    /// stream was closed (the app in the background) while its run went on and then ended, so ``connect()`` no longer
    /// streams it. The server replays a finished run's file after `Last-Event-ID` and ends the stream; each event is
    /// added once, in its place.
    ///
    /// Does nothing while a stream is open (it delivers the events itself), for a session that is active (``connect()``
    /// streams it) or before any event was shown (then ``connect()`` shows the recent ones). Stops at the first failure to connect rather than retrying.
    public func catchUp() async {
        guard !isStreaming, !isSessionActive, let newest = events.first?.id else { return }
        let stream = EventStream(
            client: client, path: "/api/sessions/\(RalphClient.component(sessionID))/events", lastEventID: String(newest), policy: policy
        )
        reading: for await update in stream.updates() {
            switch update {
            case .event(let frame) where frame.event == StreamEventName.reset:
                applyReset(try? JSONDecoder().decode(StreamReset.self, from: Data(frame.data.utf8)))
            case .event(let frame):
                guard frame.event == StreamEventName.workflow, let event = WorkflowEvent(data: frame.data) else { continue }
                receive(event)
            case .end:
                break reading
            case .state(.reconnecting), .state(.error):
                break reading
            case .state:
                continue
            }
        }
        await refreshStatus()
    }
}
