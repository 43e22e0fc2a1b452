import Testing

@testable import RalphMobileServer

@Suite("Returning memory after a load")
struct MemoryTrimmerTests {
    @Test("no trim while the load is on; one once it is over and memory is well above the last level; then not again")
    func trimsOnceAfterALoad() {
        var trimmer = MemoryTrimmer()
        let mb = 1 << 20
        let r1 = trimmer.observe(resident: 50 * mb, streams: 0)
        #expect(!r1, "the first reading sets the level")
        let r2 = trimmer.observe(resident: 120 * mb, streams: 1500)
        #expect(!r2, "under load")
        let r3 = trimmer.observe(resident: 160 * mb, streams: 3000)
        #expect(!r3)
        let r4 = trimmer.observe(resident: 160 * mb, streams: 2000)
        #expect(!r4, "still more than half the peak")
        let r5 = trimmer.observe(resident: 160 * mb, streams: 10)
        #expect(r5, "the load is over")
        trimmer.trimmed(resident: 60 * mb, streams: 10)
        let r6 = trimmer.observe(resident: 70 * mb, streams: 0)
        #expect(!r6, "close to the new level: nothing to gain")
        let r7 = trimmer.observe(resident: 60 * mb + 32 * mb, streams: 0)
        #expect(!r7)
        let r8 = trimmer.observe(resident: 60 * mb + 33 * mb, streams: 0)
        #expect(r8)
    }
}
