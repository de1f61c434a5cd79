import MockAppleID
import Synchronization

/// The `/auth/keys` bodies of one provider, made once per change of its keys (in every order a fetch
/// may get when the scenario shuffles them) and shared by the router's route and the connections'
/// shortcut.
final class KeySetBodies: Sendable {
    private let provider: AppleIDProvider
    private let made = Mutex<(changeCount: Int, bodies: [String])>((-1, []))

    init(provider: AppleIDProvider) { self.provider = provider }

    /// A body for the keys as they are now: the served order, or one of the orders when shuffled.
    func body() -> String {
        let changeCount = provider.world.keysChangeCount
        if let bodies = made.withLock({ $0.changeCount == changeCount ? $0.bodies : nil }) { return Self.oneOf(bodies) }
        let bodies = provider.keySetBodies()
        made.withLock { $0 = (changeCount, bodies) }
        return Self.oneOf(bodies)
    }

    private static func oneOf(_ bodies: [String]) -> String {
        bodies.count == 1 ? bodies[0] : bodies.randomElement() ?? "{\"keys\":[]}"
    }
}
