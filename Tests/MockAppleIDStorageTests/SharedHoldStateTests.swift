@testable import MockAppleID
@testable import MockAppleIDStorage
import Testing

/// The shared world's hold state machine on its own: holds and waiters are numbers, time is given.
@Suite("shared world's holds")
struct SharedHoldStateTests {
    private typealias State = SharedHoldState<Int, String, String>
    private static let start = ContinuousClock.now

    private static func state(mostMembers: Int = 3) -> State {
        State(mostMembers: mostMembers, joinWindow: .milliseconds(20), firstHold: 0, now: start)
    }

    private static func hold(_ admission: State.Admission?) -> (Int, opener: Bool)? {
        switch admission {
        case let .member(hold)?: return (hold, false)
        case let .opener(hold)?: return (hold, true)
        default: return nil
        }
    }

    @Test("the first request opens a hold; those arriving while it opens wait, then join it when it is open")
    func openingAndJoining() throws {
        var state = Self.state()
        var holds = 0
        let admitted = state.admit(now: Self.start) { holds += 1; return holds }
        let first = try #require(Self.hold(admitted))
        #expect(first.0 == 1 && first.opener && state.phase == .opening)
        let waiting = state.admit(now: Self.start) { 99 }
        #expect(waiting == nil)
        state.park("b")
        state.park("c")
        let opened = state.opened(version: 7, now: Self.start)
        #expect(opened.joining == ["b", "c"] && opened.hold == 1 && state.members == 3 && state.version == 7)
    }

    @Test("a hold admits its most members, and no one after its join window: later ones wait for the next")
    func admissionLimits() {
        var state = Self.state(mostMembers: 2)
        _ = state.admit(now: Self.start) { 1 }
        _ = state.opened(version: 1, now: Self.start)
        let second = state.admit(now: Self.start) { 2 }
        #expect(Self.hold(second)?.0 == 1)
        let third = state.admit(now: Self.start) { 3 }
        #expect(third == nil)  // full
        var young = Self.state()
        _ = young.admit(now: Self.start) { 1 }
        _ = young.opened(version: 1, now: Self.start)
        let late = young.admit(now: Self.start + .milliseconds(25)) { 2 }
        #expect(late == nil)  // too late to join
    }

    @Test("the last member to leave takes the hold's rows; the next waiter opens a new hold")
    func closingAndHandingOver() throws {
        var state = Self.state()
        _ = state.admit(now: Self.start) { 1 }
        _ = state.opened(version: 1, now: Self.start)
        _ = state.admit(now: Self.start) { 2 }
        let needsHold = state.enqueue([PendingRow(section: "s", key: "k", value: "v", removed: false)], replacingAll: false)
        #expect(!needsHold)
        let notLast = state.memberLeft()
        #expect(notLast == nil)
        let last = state.memberLeft()
        let closing = try #require(last)
        #expect(closing.hold == 1 && closing.rows.count == 1 && state.phase == .closing && state.rows.isEmpty)
        // Rows queued while the hold writes are not its own: the world must hold itself once more.
        let lateNeedsHold = state.enqueue([PendingRow(section: "s", key: "late", value: "v", removed: false)], replacingAll: false)
        #expect(lateNeedsHold)
        state.park("next")
        let ended = state.closedHold(version: 2) { 5 }
        #expect(ended.next?.waiter == "next" && Self.hold(ended.next?.admission)?.0 == 5 && state.phase == .opening && state.version == 2)
    }

    @Test("a failed opening fails those waiting and makes the next hold reload everything")
    func failedOpening() {
        var state = Self.state()
        _ = state.admit(now: Self.start) { 1 }
        state.park("b")
        _ = state.refuseNewHolds("closer")
        let failed = state.failedOpening()
        #expect(failed.waiting == ["b"] && failed.idle == ["closer"] && state.version == -1 && state.phase == .idle)
    }

    @Test("a complete world from the store drops what this copy queued; a closed access admits no one")
    func dropsAndRefuses() {
        var state = Self.state()
        _ = state.enqueue([PendingRow(section: "s", key: "k", value: "v", removed: false)], replacingAll: true)
        state.dropQueued()
        #expect(state.rows.isEmpty)
        let idle = state.refuseNewHolds("closer")
        #expect(idle)
        let refused = state.admit(now: Self.start, newHold: { 1 })
        guard case .failed? = refused else {
            Issue.record("a closed access admitted a request")
            return
        }
    }
}
