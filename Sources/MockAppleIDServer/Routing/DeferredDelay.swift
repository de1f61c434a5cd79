import Synchronization

/// The delay a fault (`token-delay`, `keys-delay`) asks for while a request holds a shared world: the
/// request sleeps it once its hold has ended, so a slow endpoint does not hold the world, and every
/// other server sharing it, meanwhile. Without a shared world the fault sleeps where it is taken.
final class DeferredDelay: Sendable {
    /// The current request's, when it holds a shared world.
    @TaskLocal static var current: DeferredDelay?

    private let total = Mutex<Duration>(.zero)

    func add(_ delay: Duration) { total.withLock { $0 += delay } }

    var duration: Duration { total.withLock { $0 } }
}
