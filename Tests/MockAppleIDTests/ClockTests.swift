import Foundation
import MockAppleID
import Synchronization
import Testing

/// The mock clock schedules: work fires in time order when the clock moves, never on real time in tests.
@Suite("mock clock")
struct ClockTests {
    let start = Fixtures.start

    @Test("work scheduled on the clock fires in deadline order, each at its own instant, when the clock is advanced past it")
    func firesInOrder() throws {
        let clock = MockClock.manual(at: start)
        let fired = Mutex<[(String, Date)]>([])
        for (label, offset) in [("third", 30.0), ("first", 10.0), ("second", 20.0), ("later", 100.0)] {
            clock.schedule(at: start.addingTimeInterval(offset), label: label) {
                fired.withLock { $0.append((label, clock.now)) }
            }
        }
        try clock.advance(by: 5)
        #expect(fired.withLock { $0.isEmpty })
        try clock.advance(by: 45)
        #expect(fired.withLock { $0.map(\.0) } == ["first", "second", "third"])
        #expect(fired.withLock { $0.map(\.1) } == [10.0, 20, 30].map { start.addingTimeInterval($0) })
        #expect(clock.now == start.addingTimeInterval(50))
        #expect(clock.scheduledWork.map(\.label) == ["later"])
    }

    @Test("work that schedules more work inside the same advance also fires, in order")
    func chained() throws {
        let clock = MockClock.manual(at: start)
        let fired = Mutex<[String]>([])
        clock.schedule(at: start.addingTimeInterval(10), label: "retry 1") {
            fired.withLock { $0.append("retry 1") }
            clock.schedule(at: clock.now.addingTimeInterval(20), label: "retry 2") { fired.withLock { $0.append("retry 2") } }
        }
        clock.schedule(at: start.addingTimeInterval(25), label: "other") { fired.withLock { $0.append("other") } }
        try clock.advance(by: 60)
        #expect(fired.withLock { $0 } == ["retry 1", "other", "retry 2"])
    }

    @Test("setting the clock fires what it passes; cancelled work does not fire")
    func setAndCancel() throws {
        let clock = MockClock.manual(at: start)
        let fired = Mutex<[String]>([])
        let cancelled = clock.schedule(at: start.addingTimeInterval(5), label: "cancelled") { fired.withLock { $0.append("cancelled") } }
        clock.schedule(at: start.addingTimeInterval(9), label: "kept") { fired.withLock { $0.append("kept") } }
        #expect(clock.cancel(cancelled))
        try clock.set(to: start.addingTimeInterval(3600), frozen: true)
        #expect(fired.withLock { $0 } == ["kept"])
    }

    @Test("sleep(until:) resumes when the clock is advanced past the deadline")
    func sleepUntil() async throws {
        let clock = MockClock.manual(at: start)
        let deadline = start.addingTimeInterval(60)
        async let woke: Date = { await clock.sleep(until: deadline); return clock.now }()
        while clock.scheduledWork.isEmpty { await Task.yield() }
        try clock.advance(by: 61)
        #expect(await woke >= deadline)
    }

    @Test("instants outside 1970–9999, non-finite values and overflowing advances are refused", arguments: [
        1e300, -1e300, 9.2e18, -1, 253_402_300_800, .nan, .infinity,
    ])
    func range(_ seconds: Double) throws {
        let clock = MockClock.manual(at: start)
        #expect(throws: TimeRange.Failure.self) { try clock.set(to: Date(timeIntervalSince1970: seconds), frozen: true) }
        #expect(clock.now == start)
    }

    @Test("advances beyond about 100 years, or past 9999, are refused and leave the clock alone")
    func advanceRange() throws {
        let clock = MockClock.manual(at: start)
        #expect(throws: TimeRange.Failure.self) { try clock.advance(by: 1e300) }
        #expect(throws: TimeRange.Failure.self) { try clock.advance(by: .infinity) }
        try clock.set(to: Date(timeIntervalSince1970: 253_402_300_000), frozen: true)
        #expect(throws: TimeRange.Failure.self) { try clock.advance(by: 86_400) }
        #expect(clock.now == Date(timeIntervalSince1970: 253_402_300_000))
    }

    @Test("a running clock set to the last second it accepts reads that second afterwards, never past it")
    func runningStopsAtLatest() throws {
        let wall = Mutex(start)
        let clock = MockClock(.frozen(at: start), wallClock: { wall.withLock { $0 } })
        try clock.set(to: TimeRange.latest, frozen: false)
        wall.withLock { $0 = $0.addingTimeInterval(3600) }
        #expect(clock.now == TimeRange.latest)
    }

    @Test("whole-second conversions saturate instead of trapping")
    func wholeSeconds() {
        #expect(TimeRange.wholeSeconds(1e300) == .max)
        #expect(TimeRange.wholeSeconds(-1e300) == .min)
        #expect(TimeRange.wholeSeconds(.nan) == 0)
        #expect(TimeRange.wholeSeconds(12.9) == 12)
    }
}
