import Foundation
import MockAppleID
import ServiceLifecycle

/// Fires work scheduled on a running mock clock as wall time reaches it (a frozen clock fires only when
/// set or advanced, which fires the work itself). It sleeps until the next deadline, or until the clock's
/// ``MockClock/changes`` says work was scheduled or the clock moved; it ends at graceful shutdown. Work
/// comes due as a side job (``AppleIDProvider/performSideJob(_:)``), so with a shared store it applies to
/// the latest state.
struct ClockDriver: Service {
    let provider: AppleIDProvider
    var clock: MockClock { provider.clock }

    /// How long a shared store that cannot be reached is left before due work is tried again.
    static let retryAfterStoreFailure = Duration.milliseconds(250)

    func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                var wait: Duration?
                if let next = clock.nextDeadline, next <= clock.now {
                    do { try await provider.performSideJob { clock.fireDueWork() } } catch { wait = Self.retryAfterStoreFailure }
                }
                if wait == nil, let next = clock.nextDeadline, !clock.isFrozen {
                    wait = .milliseconds(max(1, Int64(next.timeIntervalSince(clock.now) * 1000)))
                }
                await clock.changes.wait(atMost: wait)
            }
        }
    }
}
