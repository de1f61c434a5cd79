import Foundation
import MockAppleID

/// Fires work scheduled on a running mock clock as wall time reaches it (a frozen clock fires only
/// when set or advanced). It wakes at the next deadline, and at least every quarter second to see
/// work scheduled meanwhile; it ends when its task is cancelled. Work comes due while the server holds
/// the world (``World/hold(_:)``), so with a shared store it applies to the latest state.
struct ClockDriver: Sendable {
    let world: World
    var clock: MockClock { world.clock }
    /// The longest it sleeps between looks.
    static let longestNap: Double = 0.25

    func run() async {
        while !Task.isCancelled {
            if let next = clock.nextDeadline, next <= clock.now {
                // A shared store that cannot be reached now is tried again at the next look.
                _ = try? await world.hold { clock.fireDueWork() }
            }
            var nap = Self.longestNap
            if let next = clock.nextDeadline, !clock.isFrozen {
                nap = min(nap, max(0.001, next.timeIntervalSince(clock.now)))
            }
            do { try await Task.sleep(for: .seconds(nap)) } catch { return }
        }
    }
}
