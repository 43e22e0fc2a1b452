/// The catalog's runs by id: a dictionary of ``RunSnapshot``s, each kept in a box of its own.
///
/// A Swift dictionary gives every bucket its value's full size, occupied or not — a thousand runs take 2 048 buckets —
/// and a snapshot is over a kilobyte, so a table of the snapshots themselves holds more than a megabyte of empty
/// buckets for a large workspace. Boxed, a bucket is one reference. The table keeps value semantics: a copy shares
/// the boxes, and a box is changed in place only while one table holds it (copied first otherwise).
///
/// Every change (a run added, changed in place — even by a write of the same value — or removed) advances the table's
/// ``version``, and a changed run's box records it as its revision: a reader that kept what it built from the runs at
/// some version needs only the runs changed since (``changed(since:)``).
struct RunTable: Sendable {
    /// Reached only through a table, and changed only while that table holds the sole reference (see above), under
    /// the catalog's lock.
    private final class Box: @unchecked Sendable {
        var snapshot: RunSnapshot?
        /// The table's version when this run last changed.
        var revision: UInt64

        init(_ snapshot: RunSnapshot, revision: UInt64) {
            self.snapshot = snapshot
            self.revision = revision
        }
    }

    private var boxes: [String: Box] = [:]

    /// Advanced by every change of the table.
    private(set) var version: UInt64 = 0

    init() {}

    var count: Int { boxes.count }

    var isEmpty: Bool { boxes.isEmpty }

    var keys: some Collection<String> { boxes.keys }

    func contains(_ id: String) -> Bool { boxes[id] != nil }

    /// Every run (in no particular order).
    var values: [RunSnapshot] {
        // Sized once: a thousand snapshots are over a megabyte, and growing by doubling would allocate twice that.
        var all: [RunSnapshot] = []
        all.reserveCapacity(boxes.count)
        for box in boxes.values {
            if let snapshot = box.snapshot { all.append(snapshot) }
        }
        return all
    }

    mutating func reserveCapacity(_ minimumCapacity: Int) {
        boxes.reserveCapacity(minimumCapacity)
    }

    /// The runs changed since `version` (added or changed after it; every run for a version this table never had),
    /// and the ids of every run now: what a reader needs to bring what it built at `version` up to ``version``.
    func changed(since version: UInt64?) -> (changed: [RunSnapshot], ids: Set<String>) {
        var changed: [RunSnapshot] = []
        var ids = Set<String>(minimumCapacity: boxes.count)
        for (id, box) in boxes {
            guard let snapshot = box.snapshot else { continue }
            ids.insert(id)
            if version.map({ box.revision > $0 || $0 > self.version }) ?? true { changed.append(snapshot) }
        }
        return (changed, ids)
    }

    /// The runs among `ids` (those still in the table).
    func snapshots(_ ids: some Sequence<String>) -> [RunSnapshot] {
        ids.compactMap { boxes[$0]?.snapshot }
    }

    /// The runs `include` picks.
    func snapshots(where include: (RunSnapshot) -> Bool) -> [RunSnapshot] {
        var picked: [RunSnapshot] = []
        for box in boxes.values {
            if let snapshot = box.snapshot, include(snapshot) { picked.append(snapshot) }
        }
        return picked
    }

    /// The run with this id; set or changed in place (`runs[id]?.summary = …`, `runs[id]!.fold(…)`), removed by nil.
    subscript(id: String) -> RunSnapshot? {
        get { boxes[id]?.snapshot }
        _modify {
            version += 1
            if let index = boxes.index(forKey: id) {
                if !isKnownUniquelyReferenced(&boxes.values[index]) {
                    boxes.values[index] = Box(boxes.values[index].snapshot!, revision: boxes.values[index].revision)
                }
                let box = boxes.values[index]
                box.revision = version
                yield &box.snapshot
                if box.snapshot == nil { boxes.remove(at: index) }
            } else {
                var added: RunSnapshot?
                yield &added
                if let added { boxes[id] = Box(added, revision: version) }
            }
        }
        set {
            version += 1
            if let newValue { boxes[id] = Box(newValue, revision: version) } else { boxes[id] = nil }
        }
    }

    @discardableResult
    mutating func removeValue(forKey id: String) -> RunSnapshot? {
        version += 1
        return boxes.removeValue(forKey: id)?.snapshot
    }
}
