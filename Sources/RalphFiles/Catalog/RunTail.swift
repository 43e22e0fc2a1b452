/// What the catalog knows about one run file it tails, and the rule that decides whether the next read of that file
/// continues where the last one stopped or starts over.
///
/// A value with no I/O: the engine observes the file (``Observation``), asks ``decide(_:)``, and records what it read.
/// Keeping the rule here, apart from the reading, lets it be tested on plain values — a replaced file, a truncated
/// one, one rewritten in place — without racing a writer on a real disk.
struct RunTail {
    /// The file as seen just before a read: its identity, its size, and its first bytes (as many as ``head`` holds).
    struct Observation: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int
        /// The file's first `head.count` bytes now (fewer if it is shorter).
        var head: [UInt8]
    }

    /// Why a read starts over from the file's first byte (ids restart: the run's generation is bumped).
    enum ResetReason: Equatable, CustomStringConvertible {
        /// Another file now has the path (rotated, or written anew by a new loop).
        case replaced
        /// The file is shorter than what was already read.
        case truncated
        /// Same file, not shorter, but its first bytes differ: it was rewritten in place.
        case rewritten
        /// The run's dropped details could be read back from neither the index nor the file, so folding on would
        /// build on a state without them.
        case detailsLost

        var description: String {
            switch self {
            case .replaced: "replaced"
            case .truncated: "truncated"
            case .rewritten: "rewritten in place"
            case .detailsLost: "details could not be read back"
            }
        }
    }

    enum Decision: Equatable {
        case proceed
        case reset(ResetReason)
    }

    /// How many first bytes of a file are kept to notice a rewrite in place.
    static let headSize = 64

    /// Identity of the file the state was read from (nil until the first read).
    var device: UInt64?
    var inode: UInt64?
    /// Splits what is read into lines; its offset is where the next read starts.
    var splitter: LineSplitter
    /// Complete lines read (ids run 1…lineCount).
    var lineCount = 0
    /// Bumped at every reset: ids restart.
    var generation = 0
    /// The size seen at the last read (-1: never read), for the fallback poll.
    var lastSize = -1
    /// The file's first bytes as last read: a file rewritten in place (same inode, not shorter) shows up here.
    var head: [UInt8] = []
    /// The bytes that end at the splitter's line start (up to ``RunIndexStore/tailSize``), read with the lines
    /// themselves: what an index entry checks the file against.
    var end: [UInt8] = []
    /// What the on-disk index holds for this run (nil: nothing current).
    var indexed: (lineCount: Int, generation: Int)?

    init(maxLineBytes: Int) {
        splitter = LineSplitter(offset: 0, maxLineBytes: maxLineBytes)
    }

    /// Whether the index is behind what was read.
    var needsIndexing: Bool { indexed?.lineCount != lineCount || indexed?.generation != generation }

    /// Where the next read starts.
    var offset: Int { splitter.offset }

    /// Continue or start over, given the file as it is now. Checked in order: identity, size, first bytes.
    func decide(_ file: Observation) -> Decision {
        if let inode, inode != file.inode || device != file.device { return .reset(.replaced) }
        if file.size < splitter.offset { return .reset(.truncated) }
        if !head.isEmpty, file.head != head { return .reset(.rewritten) }
        return .proceed
    }

    /// Whether the file has bytes past what was read (so a read would fold new lines).
    func grows(_ file: Observation) -> Bool { file.size > splitter.offset }

    /// Whether the fallback poll should read the file: it changed size or identity since the last read (or is gone).
    func changed(device: UInt64?, inode: UInt64?, size: Int?) -> Bool {
        guard let size else { return true }
        return size != lastSize || inode != self.inode || device != self.device
    }

    /// Forgets what was read: the next read starts at byte 0, under a new generation.
    mutating func restart() {
        splitter = LineSplitter(offset: 0, maxLineBytes: splitter.maxLineBytes)
        lineCount = 0
        head = []
        generation += 1
    }

    /// How many first bytes to capture after a read (nil: the head is complete, or nothing new was read past it).
    var headBytesWanted: Int? {
        guard head.count < Self.headSize, splitter.offset > head.count else { return nil }
        return min(Self.headSize, splitter.offset)
    }

    /// Starts from a fold made elsewhere (an index entry, or a whole-file fold): `indexed` when the index holds it.
    mutating func restore(offset: Int, lineCount: Int, head: [UInt8], end: [UInt8], device: UInt64, inode: UInt64, indexed: Bool) {
        splitter = LineSplitter(offset: offset, maxLineBytes: splitter.maxLineBytes)
        self.lineCount = lineCount
        self.head = head
        self.end = end
        self.device = device
        self.inode = inode
        self.indexed = indexed ? (lineCount, generation) : nil
    }
}
