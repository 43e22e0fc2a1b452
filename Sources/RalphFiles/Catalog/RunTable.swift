/// The catalog's runs by id: a dictionary of ``RunSnapshot``s, each kept in a box of its own.
///
/// A Swift dictionary gives every bucket its value's full size, occupied or not — a thousand runs take 2 048 buckets —
/// and a snapshot is over a kilobyte, so a table of the snapshots themselves holds more than a megabyte of empty
/// buckets for a large workspace. Boxed, a bucket is one reference. The table keeps value semantics: a copy shares
/// the boxes, and a box is changed in place only while one table holds it (copied first otherwise).
struct RunTable: Sendable {
    /// Reached only through a table, and changed only while that table holds the sole reference (see above), under
    /// the catalog's lock.
    private final class Box: @unchecked Sendable {
        var snapshot: RunSnapshot?

        init(_ snapshot: RunSnapshot) { self.snapshot = snapshot }
    }

    private var boxes: [String: Box] = [:]

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

    /// The run with this id; set or changed in place (`runs[id]?.summary = …`, `runs[id]!.fold(…)`), removed by nil.
    subscript(id: String) -> RunSnapshot? {
        get { boxes[id]?.snapshot }
        _modify {
            if let index = boxes.index(forKey: id) {
                if !isKnownUniquelyReferenced(&boxes.values[index]) { boxes.values[index] = Box(boxes.values[index].snapshot!) }
                let box = boxes.values[index]
                yield &box.snapshot
                if box.snapshot == nil { boxes.remove(at: index) }
            } else {
                var added: RunSnapshot?
                yield &added
                if let added { boxes[id] = Box(added) }
            }
        }
        set {
            if let newValue { boxes[id] = Box(newValue) } else { boxes[id] = nil }
        }
    }

    @discardableResult
    mutating func removeValue(forKey id: String) -> RunSnapshot? {
        boxes.removeValue(forKey: id)?.snapshot
    }
}
