import RalphAPI
import Testing

@testable import RalphMobileKit

/// The rule of when a client reports presence, without a network or a clock.
@Suite("Presence machine")
struct PresenceMachineTests {
    let t0 = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int(seconds * 1000)) }

    @Test("nothing is sent in the background; coming to the foreground reports the screen shown")
    func foregroundReportsScreen() {
        var machine = PresenceMachine()
        #expect(machine.handle(.screen("session", subjectID: "abc"), now: at(0)) == .none)
        #expect(machine.handle(.tick, now: at(40)) == .none)
        #expect(machine.nextTick == nil)
        #expect(machine.handle(.foreground, now: at(41)) == .send(PresenceReport(foreground: true, screen: "session", subjectId: "abc")))
        #expect(machine.handle(.foreground, now: at(42)) == .none, "already in the foreground")
    }

    @Test("a change of screen is reported at once; the same screen again is not")
    func screenChange() {
        var machine = PresenceMachine()
        _ = machine.handle(.foreground, now: at(0))
        #expect(machine.handle(.screen("conversation", subjectID: "c1"), now: at(1)) == .send(PresenceReport(foreground: true, screen: "conversation", subjectId: "c1")))
        #expect(machine.handle(.screen("conversation", subjectID: "c1"), now: at(2)) == .none)
        #expect(machine.handle(.screen("conversation", subjectID: "c2"), now: at(3)) == .send(PresenceReport(foreground: true, screen: "conversation", subjectId: "c2")))
        #expect(machine.handle(.screen("approvals", subjectID: nil), now: at(4)) == .send(PresenceReport(foreground: true, screen: "approvals")))
    }

    @Test("in the foreground the report is renewed every 30 s: an early tick sends nothing, a due one sends the same screen")
    func renewal() {
        var machine = PresenceMachine()
        _ = machine.handle(.foreground, now: at(0))
        _ = machine.handle(.screen("session", subjectID: "r1"), now: at(10))
        #expect(machine.nextTick == at(40))
        #expect(machine.handle(.tick, now: at(39.9)) == .none)
        #expect(machine.handle(.tick, now: at(40)) == .send(PresenceReport(foreground: true, screen: "session", subjectId: "r1")))
        #expect(machine.nextTick == at(70))
        #expect(machine.handle(.tick, now: at(45)) == .none)
    }

    @Test("going to the background reports foreground: false once, then nothing until the foreground again")
    func background() {
        var machine = PresenceMachine()
        _ = machine.handle(.foreground, now: at(0))
        _ = machine.handle(.screen("session", subjectID: "r1"), now: at(1))
        #expect(machine.handle(.background, now: at(2)) == .send(PresenceReport(foreground: false)))
        #expect(machine.handle(.background, now: at(3)) == .none)
        #expect(machine.handle(.tick, now: at(100)) == .none)
        #expect(machine.handle(.screen("list", subjectID: nil), now: at(101)) == .none, "remembered, not sent")
        #expect(machine.handle(.foreground, now: at(102)) == .send(PresenceReport(foreground: true, screen: "list")))
    }

    @Test("the registered device's id goes with every report from then on")
    func device() {
        var machine = PresenceMachine()
        #expect(machine.handle(.device("dev1"), now: at(0)) == .none)
        #expect(machine.handle(.foreground, now: at(1)) == .send(PresenceReport(deviceId: "dev1", foreground: true)))
        #expect(machine.handle(.device("dev2"), now: at(2)) == .send(PresenceReport(deviceId: "dev2", foreground: true)))
        #expect(machine.handle(.background, now: at(3)) == .send(PresenceReport(deviceId: "dev2", foreground: false)))
    }

    @Test("a shorter refresh (tests) is honoured")
    func shortRefresh() {
        var machine = PresenceMachine(refresh: .milliseconds(200))
        _ = machine.handle(.foreground, now: at(0))
        #expect(machine.handle(.tick, now: at(0.1)) == .none)
        #expect(machine.handle(.tick, now: at(0.2)) == .send(PresenceReport(foreground: true)))
    }
}
