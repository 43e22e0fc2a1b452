import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finished runs keep only their summary in memory; their details are dropped once indexed and read back when needed.
extension CatalogEngine {
    /// A finished run whose index entry is current keeps only what the list needs in memory; its details are read back
    /// from the entry when asked for (``RunCatalog/detailedSnapshot(id:)``) or when the file grows again.
    func dropDetailsIfFinished(_ tail: Tail) {
        guard index != nil, configuration.dropFinishedDetails, !tail.known.needsIndexing else { return }
        let id = tail.location.id
        let dropped = catalog.shared.withLock { s -> Bool in
            guard let run = s.runs[id], run.details != nil, !run.isLive, run.summary.lineCount == tail.known.lineCount else { return false }
            s.runs[id]!.details = nil
            return true
        }
        if dropped { detailsDropped += 1 }
    }

    /// Puts a run's details back (from its index entry, else by folding its file up to where the catalog is), before
    /// new lines are folded in. False if neither works.
    func restoreDetails(_ tail: Tail) -> Bool {
        let id = tail.location.id
        guard let device = tail.known.device, let inode = tail.known.inode else { return false }
        var state: RunState?
        if let entry = currentIndexEntry(tail), entry.file == tail.location.file, entry.device == device, entry.inode == inode,
            entry.offset == tail.known.splitter.lineStart, entry.state.lineCount == tail.known.lineCount
        {
            state = entry.state
        } else {
            do {
                state = try EventFileReader.foldState(
                    file: tail.location.file, device: device, inode: inode, lines: tail.known.lineCount, maxLineBytes: configuration.maxLineBytes
                )
            } catch {
                logger.warning("cannot read back the details of a finished run", metadata: ["id": "\(id)", "error": "\(error)"])
                return false
            }
        }
        guard let state, state.lineCount == tail.known.lineCount else {
            logger.warning("cannot read back the details of a finished run: its file has fewer lines", metadata: ["id": "\(id)"])
            return false
        }
        catalog.shared.withLock { s in
            guard s.runs.contains(id), s.runs[id]!.details == nil else { return }
            s.runs[id]!.adopt(state)
        }
        return true
    }

    /// The run's index entry, details included. One found damaged (its details are read only now, so a restart that
    /// listed the run from its summary did not notice) is removed, and the run is written to the index again once its
    /// details are back in memory.
    func currentIndexEntry(_ tail: Tail) -> RunIndexStore.Entry? {
        guard let index else { return nil }
        let id = tail.location.id
        do {
            return try index.load(id: id)
        } catch {
            logger.notice("cannot use the run's index entry; folding its file instead", metadata: ["id": "\(id)", "error": "\(error)"])
            if error.isDamage {
                index.remove(id: id)
                tail.known.indexed = nil
            }
            return nil
        }
    }

    /// A reader found the run's index entry damaged (``RunCatalog/detailedSnapshot(id:)``): it is written again from
    /// the run's fold (its details read back from the file first when they were dropped).
    func repairIndexEntry(id: String) {
        guard let index, let tail = tails[id], !tail.awaitingFold, !tail.known.needsIndexing else { return }
        do {
            // Written again since (the run grew): nothing to repair.
            _ = try index.load(id: id)
            return
        } catch {
            guard error.isDamage else { return }
        }
        logger.notice("rewriting the run's damaged index entry", metadata: ["id": "\(id)"])
        index.remove(id: id)
        tail.known.indexed = nil
        if hasDroppedDetails(id: id), !restoreDetails(tail) { return }
        saveIndexEntry(tail, into: index)
    }

    /// Whether the run's published state lacks its details (so they must come back before lines are folded in).
    func hasDroppedDetails(id: String) -> Bool {
        catalog.shared.withLock { $0.runs[id].map { $0.details == nil } ?? false }
    }
}
