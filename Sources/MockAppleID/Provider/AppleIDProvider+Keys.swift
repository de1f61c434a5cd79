import Foundation

/// A change to the signing keys.
public enum KeyChange: Sendable, Equatable {
    /// Publish a key in `/auth/keys` (it does not sign until activated).
    case add(SigningKey)
    /// Sign identity tokens and notifications with this published key from now on.
    case activate(kid: String)
    /// Stop publishing a key (not the active one); tokens it signed no longer verify.
    case retire(kid: String)

    var label: String {
        switch self {
        case let .add(key): return "add signing key \(key.kid)"
        case let .activate(kid): return "activate signing key \(kid)"
        case let .retire(kid): return "retire signing key \(kid)"
        }
    }
}

extension SigningKey: Equatable {
    public static func == (lhs: SigningKey, rhs: SigningKey) -> Bool { lhs.kid == rhs.kid && lhs.publicJWK == rhs.publicJWK }
}

extension AppleIDProvider {
    /// The published keys and the active one.
    public func keyRing() -> KeyRing { world.read { $0.keys } }

    /// Applies a key change now.
    public func changeKeys(_ change: KeyChange) throws(KeyRing.Failure) {
        try world.transition(at: clock.now) { (state, events) throws(KeyRing.Failure) in
            switch change {
            case let .add(key): try state.addKey(key, events: &events)
            case let .activate(kid): try state.activateKey(kid, events: &events)
            case let .retire(kid): try state.retireKey(kid, events: &events)
            }
        }
    }

    /// Applies a key change when the clock reaches `date` (at once if it already has). A change
    /// that cannot be made by then is logged as a failed scheduled change.
    @discardableResult
    public func scheduleKeyChange(_ change: KeyChange, at date: Date) -> MockClock.WorkID {
        clock.scheduleOrRunDue(at: date, label: change.label) { [weak self] in
            guard let self else { return }
            do throws(KeyRing.Failure) { try self.changeKeys(change) } catch {
                self.world.record(.scheduledChangeFailed(label: change.label, reason: error.description), at: self.clock.now)
            }
        }
    }

    /// What the journal says of a request that was served the keys.
    public static let keysServedReason = "served the published keys"

    /// The `/auth/keys` bodies for the keys as they are now: the served order first, then (when shuffled)
    /// every other order a fetch may get. A server keeps them until ``World/keysChangeCount`` moves.
    public func keySetBodies() -> [String] { world.read { $0.keys.servedBodies() } }

    /// Whether a plain `GET /auth/keys` can be answered from the bodies alone, on the connection's event
    /// loop: no fault is queued (it may be the keys') and the world is not kept in a store (the answer
    /// would wait until its journal entry is saved).
    public var answersKeysAlone: Bool { !world.hasQueuedFaults && !world.isKeptInStore }

    /// Shuffles (or stops shuffling) the order of `/auth/keys` between fetches.
    public func setJWKSShuffled(_ shuffled: Bool) {
        world.transition(at: clock.now) { state, events in state.setJWKSShuffled(shuffled, events: &events) }
    }
}
