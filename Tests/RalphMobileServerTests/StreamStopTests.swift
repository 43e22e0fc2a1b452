import Foundation
import NIOCore
import Testing

@testable import RalphMobileServer

@Suite("Ends of streamed responses")
struct StreamStopTests {
    @Test("a client that went away is the normal end; any other error is logged as one")
    func classified() {
        #expect(StreamStop(CancellationError()) == .clientGone)
        #expect(StreamStop(ChannelError.ioOnClosedChannel) == .clientGone)
        #expect(StreamStop(IOError(errnoCode: EPIPE, reason: "write")) == .clientGone)
        struct Broken: Error {}
        #expect(StreamStop(Broken()) == .failed("Broken()"))

        let recorder = LogRecorder()
        StreamStop.log(CancellationError(), what: "output log of x", logger: recorder.logger)
        StreamStop.log(Broken(), what: "output log of x", logger: recorder.logger)
        #expect(recorder.messages.map(\.level) == [.debug, .error])
        #expect(recorder.messages.last?.message == "output log of x ended early: Broken()")
    }
}
