import Testing

@testable import RalphMobileKit

@Suite("Reconnecting an event stream with backoff")
struct ReconnectMachineTests {
    typealias Action = ReconnectMachine.Action
    typealias Instant = ContinuousClock.Instant

    /// The origin of the test clock: every instant is t0 plus a duration.
    let t0 = ContinuousClock.now

    static func policy(jitter: Double = 0) -> ReconnectPolicy {
        var policy = ReconnectPolicy()
        policy.jitter = jitter
        return policy
    }

    /// A machine that has been started and is connected since `at`.
    func connectedMachine(at time: Instant, lastEventID: String? = nil, jitter: Double = 0, seed: UInt64 = 1) -> ReconnectMachine {
        var machine = ReconnectMachine(policy: Self.policy(jitter: jitter), lastEventID: lastEventID, seed: seed)
        _ = machine.handle(.start, now: time)
        _ = machine.handle(.connectionOpened, now: time)
        return machine
    }

    static func wakeUp(in actions: [Action]) -> Instant? {
        for case .wakeUp(let instant) in actions { return instant }
        return nil
    }

    @Test("start connects, and opening publishes connected and arms the dead-stream timer")
    func startAndOpen() {
        var machine = ReconnectMachine(policy: Self.policy(), seed: 1)
        #expect(machine.state == .disconnected)
        #expect(machine.handle(.start, now: t0) == [.state(.connecting), .connect(lastEventID: nil)])
        #expect(machine.state == .connecting)
        #expect(machine.handle(.connectionOpened, now: t0 + .seconds(1)) == [.state(.connected), .wakeUp(at: t0 + .seconds(46))])
        #expect(machine.state == .connected)
        #expect(machine.attempt == 0)
        #expect(!machine.isFinished)

        var resuming = ReconnectMachine(lastEventID: "41")
        #expect(resuming.handle(.start, now: t0) == [.state(.connecting), .connect(lastEventID: "41")])
    }

    @Test("without jitter the delays are 1, 2, 4, 8, 16, 30, 30 … seconds")
    func backoffSequence() {
        var machine = ReconnectMachine(policy: Self.policy(), seed: 7)
        var now = t0
        _ = machine.handle(.start, now: now)
        for (index, seconds) in [1, 2, 4, 8, 16, 30, 30, 30].enumerated() {
            let attempt = index + 1
            let failure: ReconnectMachine.Input = attempt.isMultiple(of: 2) ? .streamClosed : .connectionFailed("refused")
            #expect(
                machine.handle(failure, now: now)
                    == [.closeConnection, .state(.reconnecting(attempt: attempt)), .wakeUp(at: now + .seconds(seconds))])
            #expect(machine.attempt == attempt)
            #expect(machine.state == .reconnecting(attempt: attempt))
            now += .seconds(seconds)
            #expect(machine.handle(.tick, now: now) == [.state(.connecting), .connect(lastEventID: nil)])
            #expect(machine.attempt == attempt)
        }
    }

    @Test("with jitter each delay stays within ±20 % and never exceeds 30 s, reproducibly per seed")
    func jitterBounds() {
        let nominal = [1, 2, 4, 8, 16, 30, 30, 30]
        let tolerance = Duration.microseconds(1)
        var firstDelays: Set<Duration> = []
        for seed in UInt64(0)..<300 {
            var delays: [Duration] = []
            var machine = ReconnectMachine(policy: Self.policy(jitter: 0.2), seed: seed)
            var now = t0
            _ = machine.handle(.start, now: now)
            for seconds in nominal {
                let due = Self.wakeUp(in: machine.handle(.connectionFailed("x"), now: now))!
                let delay = due - now
                delays.append(delay)
                let expected = Duration.seconds(seconds)
                #expect(delay >= expected * 0.8 - tolerance)
                #expect(delay <= expected * 1.2 + tolerance)
                #expect(delay <= .seconds(30))
                now = due
                _ = machine.handle(.tick, now: now)
            }
            firstDelays.insert(delays[0])

            var replay = ReconnectMachine(policy: Self.policy(jitter: 0.2), seed: seed)
            var replayNow = t0
            _ = replay.handle(.start, now: replayNow)
            for delay in delays {
                let due = Self.wakeUp(in: replay.handle(.connectionFailed("x"), now: replayNow))!
                #expect(due - replayNow == delay)
                replayNow = due
                _ = replay.handle(.tick, now: replayNow)
            }
        }
        // The jitter really varies between seeds.
        #expect(firstDelays.count > 100)
    }

    @Test("the attempt counter is reset only by a successful connection, not by a new attempt")
    func counterReset() {
        var machine = ReconnectMachine(policy: Self.policy(), seed: 3)
        _ = machine.handle(.start, now: t0)
        #expect(Self.wakeUp(in: machine.handle(.connectionFailed("a"), now: t0)) == t0 + .seconds(1))
        #expect(machine.handle(.tick, now: t0 + .seconds(1)) == [.state(.connecting), .connect(lastEventID: nil)])
        #expect(machine.attempt == 1)
        #expect(Self.wakeUp(in: machine.handle(.connectionFailed("b"), now: t0 + .seconds(2))) == t0 + .seconds(4))
        #expect(machine.attempt == 2)
        _ = machine.handle(.tick, now: t0 + .seconds(4))
        #expect(machine.attempt == 2)
        _ = machine.handle(.connectionOpened, now: t0 + .seconds(5))
        #expect(machine.attempt == 0)
        #expect(
            machine.handle(.streamClosed, now: t0 + .seconds(10))
                == [.closeConnection, .state(.reconnecting(attempt: 1)), .wakeUp(at: t0 + .seconds(11))])
    }

    @Test("the last event ID is carried into every connect")
    func lastEventIDCarried() {
        var machine = connectedMachine(at: t0, lastEventID: "10")
        #expect(machine.handle(.received(eventID: "11"), now: t0 + .seconds(1)) == [.wakeUp(at: t0 + .seconds(46))])
        #expect(machine.lastEventID == "11")
        _ = machine.handle(.received(eventID: nil), now: t0 + .seconds(2))
        #expect(machine.lastEventID == "11")
        _ = machine.handle(.connectionFailed("reset"), now: t0 + .seconds(3))
        #expect(machine.handle(.tick, now: t0 + .seconds(4)) == [.state(.connecting), .connect(lastEventID: "11")])
        // A failed attempt keeps it for the next one.
        _ = machine.handle(.connectionFailed("refused"), now: t0 + .seconds(4))
        #expect(machine.handle(.tick, now: t0 + .seconds(6)) == [.state(.connecting), .connect(lastEventID: "11")])
        _ = machine.handle(.connectionOpened, now: t0 + .seconds(7))
        _ = machine.handle(.received(eventID: "12"), now: t0 + .seconds(8))
        _ = machine.handle(.streamClosed, now: t0 + .seconds(9))
        #expect(machine.handle(.tick, now: t0 + .seconds(10)) == [.state(.connecting), .connect(lastEventID: "12")])
    }

    @Test("an empty event ID clears the last event ID, so no empty Last-Event-ID is sent")
    func emptyEventIDClears() {
        var machine = connectedMachine(at: t0, lastEventID: "5")
        _ = machine.handle(.received(eventID: ""), now: t0)
        #expect(machine.lastEventID == nil)
        _ = machine.handle(.streamClosed, now: t0)
        #expect(machine.handle(.tick, now: t0 + .seconds(1)) == [.state(.connecting), .connect(lastEventID: nil)])
    }

    @Test("no activity for 45 s means a dead stream, and a reconnect follows")
    func deadStream() {
        var machine = connectedMachine(at: t0)
        // An early tick re-arms the pending deadline and changes nothing.
        #expect(machine.handle(.tick, now: t0 + .seconds(44)) == [.wakeUp(at: t0 + .seconds(45))])
        #expect(machine.state == .connected)
        #expect(
            machine.handle(.tick, now: t0 + .seconds(45))
                == [.closeConnection, .state(.reconnecting(attempt: 1)), .wakeUp(at: t0 + .seconds(46))])
        #expect(machine.handle(.tick, now: t0 + .seconds(46)) == [.state(.connecting), .connect(lastEventID: nil)])
    }

    @Test("events and heartbeats postpone dead-stream detection")
    func activityPostpones() {
        var machine = connectedMachine(at: t0)
        #expect(machine.handle(.heartbeat, now: t0 + .seconds(30)) == [.wakeUp(at: t0 + .seconds(75))])
        #expect(machine.handle(.tick, now: t0 + .seconds(45)) == [.wakeUp(at: t0 + .seconds(75))])
        #expect(machine.handle(.received(eventID: "1"), now: t0 + .seconds(70)) == [.wakeUp(at: t0 + .seconds(115))])
        #expect(machine.handle(.tick, now: t0 + .seconds(75)) == [.wakeUp(at: t0 + .seconds(115))])
        #expect(machine.state == .connected)
        #expect(
            machine.handle(.tick, now: t0 + .seconds(120))
                == [.closeConnection, .state(.reconnecting(attempt: 1)), .wakeUp(at: t0 + .seconds(121))])
    }

    @Test("an early tick while waiting to retry re-arms the retry time and does not connect")
    func earlyRetryTick() {
        var machine = connectedMachine(at: t0)
        _ = machine.handle(.connectionFailed("x"), now: t0)
        #expect(machine.handle(.tick, now: t0 + .milliseconds(999)) == [.wakeUp(at: t0 + .seconds(1))])
        #expect(machine.state == .reconnecting(attempt: 1))
        #expect(machine.handle(.tick, now: t0 + .seconds(3)) == [.state(.connecting), .connect(lastEventID: nil)])
    }

    @Test("retry advice becomes the base delay, clamped to 0.1 s … 30 s")
    func retryAdvice() {
        var machine = connectedMachine(at: t0)
        #expect(machine.handle(.retryAdvice(.seconds(5)), now: t0).isEmpty)
        #expect(Self.wakeUp(in: machine.handle(.streamClosed, now: t0)) == t0 + .seconds(5))
        _ = machine.handle(.tick, now: t0 + .seconds(5))
        #expect(Self.wakeUp(in: machine.handle(.connectionFailed("x"), now: t0 + .seconds(5))) == t0 + .seconds(15))

        var fast = connectedMachine(at: t0)
        _ = fast.handle(.retryAdvice(.milliseconds(10)), now: t0)
        #expect(Self.wakeUp(in: fast.handle(.streamClosed, now: t0)) == t0 + .milliseconds(100))

        var slow = connectedMachine(at: t0)
        _ = slow.handle(.retryAdvice(.seconds(600)), now: t0)
        #expect(Self.wakeUp(in: slow.handle(.streamClosed, now: t0)) == t0 + .seconds(30))
    }

    @Test("end of stream finishes without any reconnect, whatever follows")
    func endedFinishes() {
        var machine = connectedMachine(at: t0)
        #expect(machine.handle(.ended, now: t0 + .seconds(1)) == [.closeConnection, .state(.disconnected), .finish])
        #expect(machine.isFinished)
        #expect(machine.state == .disconnected)
        for input: ReconnectMachine.Input in [.tick, .streamClosed, .connectionFailed("late"), .start, .connectionOpened, .heartbeat, .stop, .fatal("x")] {
            #expect(machine.handle(input, now: t0 + .seconds(1000)).isEmpty)
        }
        #expect(machine.state == .disconnected)
        #expect(machine.attempt == 0)
    }

    @Test("a fatal error publishes the error state and finishes")
    func fatalFinishes() {
        var machine = ReconnectMachine(policy: Self.policy(), seed: 1)
        _ = machine.handle(.start, now: t0)
        #expect(machine.handle(.fatal("401 Unauthorized"), now: t0) == [.closeConnection, .state(.error("401 Unauthorized")), .finish])
        #expect(machine.state == .error("401 Unauthorized"))
        #expect(machine.isFinished)
        #expect(machine.handle(.tick, now: t0 + .seconds(60)).isEmpty)
        #expect(machine.handle(.start, now: t0 + .seconds(60)).isEmpty)
        #expect(machine.state == .error("401 Unauthorized"))
    }

    @Test("stop while waiting for a retry finishes and the pending retry never connects")
    func stopWhileWaiting() {
        var machine = connectedMachine(at: t0)
        _ = machine.handle(.connectionFailed("x"), now: t0)
        #expect(machine.handle(.stop, now: t0 + .milliseconds(500)) == [.closeConnection, .state(.disconnected), .finish])
        #expect(machine.isFinished)
        #expect(machine.handle(.tick, now: t0 + .seconds(1)).isEmpty)
        #expect(machine.state == .disconnected)
    }

    @Test("inputs that make no sense in the current state are ignored and change nothing")
    func ignoredInputs() {
        var machine = ReconnectMachine(policy: Self.policy(), lastEventID: "1", seed: 1)
        // Before start.
        for input: ReconnectMachine.Input in [.tick, .received(eventID: "9"), .heartbeat, .connectionOpened, .connectionFailed("x"), .streamClosed] {
            #expect(machine.handle(input, now: t0).isEmpty)
        }
        #expect(machine.state == .disconnected)
        #expect(machine.lastEventID == "1")

        // While connecting.
        _ = machine.handle(.start, now: t0)
        for input: ReconnectMachine.Input in [.start, .tick, .received(eventID: "9"), .heartbeat] {
            #expect(machine.handle(input, now: t0 + .seconds(100)).isEmpty)
        }
        #expect(machine.state == .connecting)
        #expect(machine.lastEventID == "1")

        // While connected.
        _ = machine.handle(.connectionOpened, now: t0)
        #expect(machine.handle(.start, now: t0).isEmpty)
        #expect(machine.handle(.connectionOpened, now: t0).isEmpty)
        #expect(machine.state == .connected)

        // While reconnecting: late events and errors from the dropped connection.
        _ = machine.handle(.connectionFailed("x"), now: t0)
        for input: ReconnectMachine.Input in [.start, .received(eventID: "9"), .heartbeat, .connectionOpened, .connectionFailed("late"), .streamClosed] {
            #expect(machine.handle(input, now: t0).isEmpty)
        }
        #expect(machine.state == .reconnecting(attempt: 1))
        #expect(machine.attempt == 1)
        #expect(machine.lastEventID == "1")
        #expect(machine.handle(.tick, now: t0 + .seconds(1)) == [.state(.connecting), .connect(lastEventID: "1")])
    }
}
