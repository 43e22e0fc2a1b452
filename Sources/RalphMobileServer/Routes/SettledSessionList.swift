import Foundation
import NIOCore
import RalphAPI
import RalphFiles
import Synchronization

/// The finished runs' part of the session list, kept encoded and sorted between lists: a list of a large workspace
/// builds only what changed since the last one — the live runs, the runs run control holds records of, and the runs
/// the catalog changed since — instead of a session from every run on every request.
///
/// The bytes are exactly those of the full build (``SessionRoutes/list(_:_:)`` without it): the same sessions, in the
/// same order (newest start first, then id), each encoded alone as the array would encode it.
final class SettledSessionList: Sendable {
    /// A settled run's place in the list and its session's JSON.
    struct Entry: Sendable {
        var start: Double
        var id: String
        var json: [UInt8]

        /// Newest first, then by id (descending): the list's order.
        static func precedes(_ a: (start: Double, id: String), _ b: (start: Double, id: String)) -> Bool {
            (a.start, a.id) > (b.start, b.id)
        }
    }

    private struct State {
        var version: UInt64?
        var byID: [String: Entry] = [:]
        var sorted: [Entry] = []
    }

    private let state = Mutex(State())
    /// Encodes each session (and keeps the fresh ones' JSON while they are unchanged).
    private let encoder: SessionListEncoder

    init(encoder: SessionListEncoder) {
        self.encoder = encoder
    }

    /// The list's body: `pending` first, then the catalog's runs newest first. `session` builds a run's session (with
    /// run control's records and this host's stamp); runs in `records` (paused, stopped) are built on every call.
    func body(
        catalog: RunCatalog, records: Set<String>, pending: [Session], session: (RunSnapshot) -> Session
    ) throws(SessionListEncoder.Failure) -> ByteBuffer {
        let settled = try settledEntries(catalog: catalog, records: records, session: session)
        let fresh = settled.fresh.map { (start: ($0.startDate ?? .distantPast).timeIntervalSince1970, session: session($0)) }
            .sorted { Entry.precedes(($0.start, $0.session.id), ($1.start, $1.session.id)) }
        let freshJSON = try encoder.encodeEach(pending + fresh.map(\.session))

        var buffer = ByteBuffer()
        buffer.reserveCapacity(settled.entries.reduce(2) { $0 + $1.json.count + 1 } + freshJSON.reduce(0) { $0 + $1.count + 1 })
        buffer.writeInteger(UInt8(ascii: "["))
        var first = true
        func write(_ json: [UInt8]) {
            if !first { buffer.writeInteger(UInt8(ascii: ",")) }
            first = false
            buffer.writeBytes(json)
        }
        for json in freshJSON.prefix(pending.count) { write(json) }
        // Two sorted sequences merged: the fresh runs are few.
        var next = 0
        for entry in settled.entries where !records.contains(entry.id) {
            while next < fresh.count, Entry.precedes((fresh[next].start, fresh[next].session.id), (entry.start, entry.id)) {
                write(freshJSON[pending.count + next])
                next += 1
            }
            write(entry.json)
        }
        while next < fresh.count {
            write(freshJSON[pending.count + next])
            next += 1
        }
        buffer.writeInteger(UInt8(ascii: "]"))
        return buffer
    }

    /// The settled entries brought up to the catalog's version (sorted), and the runs to build fresh.
    private func settledEntries(
        catalog: RunCatalog, records: Set<String>, session: (RunSnapshot) -> Session
    ) throws(SessionListEncoder.Failure) -> (entries: [Entry], fresh: [RunSnapshot]) {
        try state.withLock { (state: inout State) throws(SessionListEncoder.Failure) -> ([Entry], [RunSnapshot]) in
            let listing = catalog.listing(since: state.version, fresh: records)
            guard let ids = listing.ids else { return (state.sorted, listing.fresh) }
            // A run no longer settled (it went live again, it lost its start) or gone leaves; a changed one is rebuilt.
            var byID = state.byID.filter { ids.contains($0.key) }
            let unsettled = Set(listing.fresh.map(\.id)).subtracting(records)
            for id in unsettled { byID[id] = nil }
            for snapshot in listing.changed {
                let built = session(snapshot)
                byID[snapshot.id] = Entry(
                    start: (snapshot.startDate ?? .distantPast).timeIntervalSince1970, id: built.id, json: try encoder.encoded(built))
            }
            state.version = listing.version
            state.byID = byID
            state.sorted = byID.values.sorted { Entry.precedes(($0.start, $0.id), ($1.start, $1.id)) }
            return (state.sorted, listing.fresh)
        }
    }
}
