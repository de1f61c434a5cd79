import Foundation
import MockAppleID

/// Fires work scheduled on a running mock clock as wall time reaches it (a frozen clock fires only
/// when set or advanced). It wakes at the next deadline, and at least every quarter second to see
/// work scheduled meanwhile; it ends when its task is cancelled.
struct ClockDriver: Sendable {
    let clock: MockClock
    /// The longest it sleeps between looks.
    static let longestNap: Double = 0.25

    func run() async {
        while !Task.isCancelled {
            clock.fireDueWork()
            var nap = Self.longestNap
            if let next = clock.nextDeadline, !clock.isFrozen {
                nap = min(nap, max(0.001, next.timeIntervalSince(clock.now)))
            }
            do { try await Task.sleep(for: .seconds(nap)) } catch { return }
        }
    }
}
