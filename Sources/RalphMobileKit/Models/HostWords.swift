import Foundation
import RalphAPI

/// The words every client uses for the hosts of a cluster and their runs, so the phone, the terminal and the tests say
/// the same thing.
public enum HostWords {
    /// `online` or `offline`.
    public static func state(_ host: HostInfo) -> String { host.online ? "online" : "offline" }

    /// `alpha`, or `alpha (this server)` for the server answering.
    public static func name(_ host: HostInfo) -> String { host.isSelf ? "\(host.name) (this server)" : host.name }

    /// The host a run names, for sentences: `host alpha`, or `its host` when the run does not say.
    static func subject(_ session: Session) -> String { session.host.map { "host \($0)" } ?? "its host" }

    /// `Host alpha is offline: what this run does now is not known until it is back.`; nil for a run that is reachable.
    public static func unreachable(_ session: Session) -> String? {
        guard session.isUnreachable else { return nil }
        let subject = subject(session)
        return subject.prefix(1).uppercased() + subject.dropFirst() + " is offline: what this run does now is not known until it is back."
    }

    /// Why a run's controls are off: its host is offline. Nil for a reachable run.
    public static func controlsOff(_ session: Session) -> String? {
        guard session.isUnreachable else { return nil }
        return "Controls are off: \(subject(session)) is offline, so this run cannot be paused, resumed, stopped, steered or sent events until it is back."
    }

    /// `Controls are off until host alpha is back.`, for a footer or a button's place; nil for a reachable run.
    public static func controlsOffBrief(_ session: Session) -> String? {
        session.isUnreachable ? "Controls are off until \(subject(session)) is back." : nil
    }

    /// `Host alpha is offline: 2 runs unreachable.`, `Hosts alpha and bravo are offline: …`; nil when every host is online.
    public static func offlineBanner(hosts: [HostInfo], sessions: [Session]) -> String? {
        let offline = hosts.filter { !$0.online }
        guard !offline.isEmpty else { return nil }
        let names = offline.map(\.name)
        let list = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
        let ids = Set(offline.map(\.id))
        let count = sessions.filter { $0.hostId.map(ids.contains) ?? false }.count
        let runs = count == 0 ? "no runs there" : count == 1 ? "1 run unreachable" : "\(count) runs unreachable"
        return (names.count == 1 ? "Host \(list) is" : "Hosts \(list) are") + " offline: \(runs)."
    }
}
