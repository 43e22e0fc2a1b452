/// When to hand freed heap back to the system after a load.
///
/// glibc keeps the pages that thousands of connections and their buffers used, in every arena, long after they are
/// closed: without a trim the server stays at its peak (measured: 49 MB idle → 164 MB after three rounds of 3 000
/// connections, and there for good; 60 MB after a trim). A trim walks the arenas under their locks, so it is not done
/// all the time: only when resident memory is well above what it was after the last trim *and* the load has gone
/// down (the open streams fell to half their peak), i.e. once a load is over.
struct MemoryTrimmer: Sendable {
    /// How far above the last trimmed level resident memory must be for a trim to be worth it.
    var threshold: Int = 32 << 20
    /// The lowest resident bytes seen since the last trim (at start: the idle level).
    private(set) var floor: Int?
    /// Most streams open since the last trim.
    private(set) var peakStreams = 0

    /// One observation; true when a trim should be done now. Call ``trimmed(resident:)`` after it.
    mutating func observe(resident: Int, streams: Int) -> Bool {
        guard let floor else {
            self.floor = resident
            peakStreams = streams
            return false
        }
        self.floor = min(floor, resident)
        peakStreams = max(peakStreams, streams)
        return resident > min(floor, resident) + threshold && streams * 2 <= peakStreams
    }

    /// The trim was done; `resident` is what is left.
    mutating func trimmed(resident: Int, streams: Int) {
        floor = resident
        peakStreams = streams
    }
}
