import Foundation
import RalphAPI
import RalphMobileKit

/// The hosts of a cluster on the sessions list: one row per server, whether it is online, which one answers, when it
/// was last heard from, and how many runs it has. Only in a cluster: a server on its own has no such section.
public struct HostsSection: Sendable, Equatable {
    /// `Hosts`.
    public var title: String
    /// This server first, then by name.
    public var rows: [HostRow]
    /// `3 hosts · 1 offline`.
    public var summary: String
    /// `Host alpha is offline: 2 runs unreachable.`; nil while every host is online.
    public var banner: String?
    /// The banner's colour.
    public var bannerTone: BadgeTone

    /// The section for `hosts` and their `sessions` at `now`; nil for a server that is not part of a cluster.
    public init?(hosts: [HostInfo], clustered: Bool, sessions: [Session], now: Date = Date()) {
        guard clustered, !hosts.isEmpty else { return nil }
        title = "Hosts"
        rows = hosts.map { HostRow($0, sessions: sessions, now: now) }
        let offline = hosts.filter { !$0.online }.count
        summary = Formatting.count(hosts.count, "host") + (offline > 0 ? " · \(offline) offline" : " · all online")
        banner = HostWords.offlineBanner(hosts: hosts, sessions: sessions)
        bannerTone = .danger
    }
}

/// One host of a cluster, ready to lay out.
public struct HostRow: Sendable, Equatable, Identifiable {
    /// The host id.
    public var id: String
    /// `alpha`.
    public var name: String
    /// The server this app talks to.
    public var isSelf: Bool
    public var isOnline: Bool
    /// `online` (success) or `offline` (danger).
    public var state: SessionBadge
    /// `this server`, or nil.
    public var selfText: String?
    /// `last seen 3s ago`.
    public var lastSeenText: String
    /// `3 runs · 1 live`, `2 runs unreachable`, `no runs`.
    public var runsText: String
    /// `version 0.9.0`.
    public var versionText: String
    /// Everything above in one sentence for VoiceOver.
    public var accessibilityLabel: String

    public init(_ host: HostInfo, sessions: [Session], now: Date = Date()) {
        id = host.id
        name = host.name
        isSelf = host.isSelf
        isOnline = host.online
        state =
            host.online
            ? SessionBadge(text: "online", tone: .success, accessibilityLabel: "Online")
            : SessionBadge(text: "offline", tone: .danger, accessibilityLabel: "Offline")
        selfText = host.isSelf ? "this server" : nil
        lastSeenText = "last seen " + Formatting.relativeTime(host.lastHeartbeatAt, now: now)
        let runs = sessions.filter { $0.hostId == host.id }
        if runs.isEmpty {
            runsText = "no runs"
        } else if !host.online {
            runsText = Formatting.count(runs.count, "run") + " unreachable"
        } else {
            runsText = Formatting.count(runs.count, "run") + " · \(runs.filter(\.isActive).count) live"
        }
        versionText = "version \(host.version)"
        var parts = ["Host \(host.name)", state.accessibilityLabel]
        if host.isSelf { parts.append("this server") }
        parts += [lastSeenText, runsText]
        accessibilityLabel = parts.joined(separator: ", ")
    }
}

/// A choice of the host filter: every host, or one host, with how many runs it would show.
public struct HostFilterOption: Sendable, Equatable, Identifiable {
    /// The host id; nil for every host.
    public var hostID: String?
    /// `All hosts (5)`, `alpha (3)`, `bravo · offline (2)`.
    public var label: String
    public var id: String { hostID ?? "" }

    public init(hostID: String?, label: String) {
        self.hostID = hostID
        self.label = label
    }

    /// Every host first, then each host in the order given; none for a server that is not part of a cluster.
    public static func options(hosts: [HostInfo], clustered: Bool, sessions: [Session]) -> [HostFilterOption] {
        guard clustered, !hosts.isEmpty else { return [] }
        let all = HostFilterOption(hostID: nil, label: "All hosts (\(sessions.count))")
        return [all]
            + hosts.map { host in
                let count = sessions.filter { $0.hostId == host.id }.count
                return HostFilterOption(hostID: host.id, label: host.name + (host.online ? "" : " · offline") + " (\(count))")
            }
    }
}
