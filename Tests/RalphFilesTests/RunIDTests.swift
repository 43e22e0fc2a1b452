import Testing

@testable import RalphFiles

@Suite("Run ids")
struct RunIDTests {
    @Test("ids match the SipHash-1-3 vectors of the original server", arguments: [
        ("/home/user/project/.ralph", "c0afaae89cf224b0"),
        ("/tmp/x/.agent", "74aff6f801e31469"),
        ("/Users/nick/Desktop/ralph-orchestrator/.ralph", "dae4a8801db2e608"),
        ("", "30406ea523c53def"),
    ])
    func vectors(_ path: String, _ expected: String) {
        #expect(RunID.make(forPath: path) == expected)
    }

    @Test("ids are always 16 lowercase hex digits, zero-padded")
    func shape() {
        var sawLeadingZero = false
        for i in 0..<2_000 {
            let id = RunID.make(forPath: "/work/project-\(i)/.ralph/events-20260205-0839\(i % 60).jsonl")
            #expect(id.utf8.count == 16, "\(id)")
            #expect(id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }, "\(id)")
            #expect(RunID.isFullID(id))
            if id.hasPrefix("0") { sawLeadingZero = true }
        }
        // About one id in sixteen starts with 0; 2000 paths make missing all of them practically impossible.
        #expect(sawLeadingZero)
    }

    @Test("ids are stable and differ between paths")
    func stableAndDistinct() {
        let a = RunID.make(forPath: "/srv/a/.ralph/events-20260205-083922.jsonl")
        #expect(RunID.make(forPath: "/srv/a/.ralph/events-20260205-083922.jsonl") == a)
        #expect(RunID.make(forPath: "/srv/a/.ralph/events-20260205-083923.jsonl") != a)
        #expect(RunID.make(forPath: "/srv/a/.ralph/events-20260205-083922.jsonl/") != a)
    }

    @Test("paths of every length around the 8-byte block size hash without trouble")
    func blockBoundaries() {
        var seen = Set<String>()
        for length in 0...40 {
            let id = RunID.make(forPath: String(repeating: "a", count: length))
            #expect(RunID.isFullID(id))
            seen.insert(id)
        }
        #expect(seen.count == 41)
    }

    @Test("non-ASCII paths hash their UTF-8 bytes")
    func unicodePaths() {
        let id = RunID.make(forPath: "/home/zoë/プロジェクト/.ralph")
        #expect(RunID.isFullID(id))
        #expect(id != RunID.make(forPath: "/home/zoe/プロジェクト/.ralph"))
    }

    @Test("isFullID accepts exactly 16 lowercase hex characters", arguments: [
        ("c0afaae89cf224b0", true),
        ("0000000000000000", true),
        ("ffffffffffffffff", true),
        ("C0AFAAE89CF224B0", false),
        ("c0afaae89cf224b", false),
        ("c0afaae89cf224b00", false),
        ("c0afaae89cf224bg", false),
        ("c0afaae89cf224b ", false),
        ("", false),
        ("c0af", false),
        ("c0afaae89cf224b０", false),
    ])
    func isFullID(_ text: String, _ expected: Bool) {
        #expect(RunID.isFullID(text) == expected)
    }

    @Test("the internal SipHash-1-3 with zero keys matches Rust's DefaultHasher for a str")
    func sipHashDirect() {
        // DefaultHasher hashes a str as its bytes followed by 0xFF.
        #expect(SipHash13.hash(Array("/tmp/x/.agent".utf8) + [0xFF]) == 0x74af_f6f8_01e3_1469)
        #expect(SipHash13.hash([0xFF]) == 0x3040_6ea5_23c5_3def)
    }
}
