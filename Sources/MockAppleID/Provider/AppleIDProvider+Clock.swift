import Foundation

/// The mock clock, set and moved: every change is an event.
extension AppleIDProvider {
    /// Sets the clock (and whether it stands still); scheduled work that comes due fires in order.
    public func setClock(to date: Date, frozen: Bool) throws(TimeRange.Failure) {
        try clock.set(to: date, frozen: frozen)
        logClock()
    }

    /// Moves the clock; scheduled work that comes due fires in order.
    public func advanceClock(by seconds: TimeInterval) throws(TimeRange.Failure) {
        try clock.advance(by: seconds)
        logClock()
    }

    private func logClock() {
        let now = clock.now
        world.transition(at: now) { _, events in events.append(.clockChanged(now: now, frozen: clock.isFrozen)) }
    }
}
