import RalphAPI
import RalphMobilePresentation
import Testing

@Suite("What each role may do")
struct CapabilitiesTests {
    @Test("viewers only read; operators steer, chat and decide; admins also start, stop, write files and manage keys")
    func roles() {
        let viewer = Capabilities(role: .viewer)
        #expect(viewer.canRead)
        #expect(![viewer.canSteer, viewer.canChat, viewer.canDecideApprovals, viewer.canControlAutoReply, viewer.canStartRuns, viewer.canStopRuns, viewer.canWriteFiles, viewer.canManageKeys].contains(true))
        let op = Capabilities(role: .operator)
        #expect(op.canSteer && op.canChat && op.canDecideApprovals && op.canControlAutoReply)
        #expect(!op.canStartRuns && !op.canStopRuns && !op.canWriteFiles && !op.canManageKeys)
        let admin = Capabilities(role: .admin)
        #expect(admin.canSteer && admin.canChat && admin.canStartRuns && admin.canStopRuns && admin.canWriteFiles && admin.canManageKeys)
    }
}
