import Foundation

/// Handing freed heap back to the system: glibc keeps freed pages in every arena otherwise.
extension CatalogEngine {
    /// A bulk read is followed by a trim once no other came for this long…
    static let bulkReadQuiet = 0.25
    /// …and at most this often.
    static let bulkReadTrimInterval = 1.0

    /// After the first discovery and the background folds (`always`), or once enough details were dropped.
    func returnFreedMemory(always: Bool = false) {
        guard detailsDropped >= 16 || always else { return }
        detailsDropped = 0
        trimHeap()
    }

    func trimHeap() {
        Heap.trim()
        lastTrim = Self.now()
    }

    /// When the trim that follows bulk reads is due (infinity: no bulk read since the last one).
    func bulkReadTrimDue() -> Double {
        guard let at = catalog.shared.withLock({ $0.bulkReadAt }) else { return .infinity }
        return max(at + Self.bulkReadQuiet, lastTrim + Self.bulkReadTrimInterval)
    }

    /// Bulk reads (``RunCatalog/snapshots()`` of a large catalog) copy every snapshot on the caller's thread, and the
    /// callers build more from them: a list request over a thousand runs allocates megabytes it frees at once. glibc
    /// serves such blocks from the calling thread's arena once its mmap threshold has risen past their size, and keeps
    /// the freed pages there — in every arena the requests ran on. Once the reads have stopped, they go back.
    func trimAfterBulkReads(at t: Double) {
        guard t >= bulkReadTrimDue() else { return }
        let quiet = catalog.shared.withLock { s -> Bool in
            guard let at = s.bulkReadAt, t >= at + Self.bulkReadQuiet else { return false }
            s.bulkReadAt = nil
            return true
        }
        if quiet { trimHeap() }
    }
}
