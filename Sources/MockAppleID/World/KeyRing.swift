import Foundation

/// The identity-token signing keys: those published at `/auth/keys` (in order), the one that signs,
/// and whether the published order is shuffled between fetches as Apple's is.
public struct KeyRing: Sendable, Codable {
    /// Published keys, in the order they are served when not shuffled.
    public private(set) var published: [SigningKey]
    /// The `kid` of the key that signs identity tokens and notifications.
    public private(set) var activeKID: String
    /// Whether each `/auth/keys` answer lists the keys in another order.
    public private(set) var shuffled: Bool
    /// Changes whenever the published keys or their order change, so the served bodies are rebuilt only then.
    private(set) var revision = 0

    /// The most keys a ring may publish.
    public static let capacity = 16

    /// Why a key change was refused.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
        enum Base: Sendable, Equatable {
            case unknownKey(String)
            case duplicateKey(String)
            case retiringActiveKey(String)
            case full
        }

        /// Which of them.
        let base: Base

        public static func unknownKey(_ kid: String) -> Self { Self(base: .unknownKey(kid)) }
        public static func duplicateKey(_ kid: String) -> Self { Self(base: .duplicateKey(kid)) }
        public static func retiringActiveKey(_ kid: String) -> Self { Self(base: .retiringActiveKey(kid)) }
        public static var full: Self { Self(base: .full) }

        public var description: String {
            switch base {
            case let .unknownKey(kid): return "no published signing key has kid \(kid)"
            case let .duplicateKey(kid): return "a signing key with kid \(kid) is already published"
            case let .retiringActiveKey(kid): return "key \(kid) signs tokens; activate another key before retiring it"
            case .full: return "at most \(KeyRing.capacity) signing keys can be published"
            }
        }
    }

    public init(published: [SigningKey], activeKID: String, shuffled: Bool = false) throws(Failure) {
        guard published.contains(where: { $0.kid == activeKID }) else { throw .unknownKey(activeKID) }
        self.published = published
        self.activeKID = activeKID
        self.shuffled = shuffled
    }

    /// The key that signs.
    public var active: SigningKey { published.first { $0.kid == activeKID }! }

    /// The published key with `kid`.
    public func key(withID kid: String) -> SigningKey? { published.first { $0.kid == kid } }

    mutating func add(_ key: SigningKey) throws(Failure) {
        guard self.key(withID: key.kid) == nil else { throw .duplicateKey(key.kid) }
        guard published.count < Self.capacity else { throw .full }
        published.append(key)
        revision += 1
    }

    mutating func activate(_ kid: String) throws(Failure) {
        guard key(withID: kid) != nil else { throw .unknownKey(kid) }
        activeKID = kid
    }

    mutating func retire(_ kid: String) throws(Failure) {
        guard key(withID: kid) != nil else { throw .unknownKey(kid) }
        guard kid != activeKID else { throw .retiringActiveKey(kid) }
        published.removeAll { $0.kid == kid }
        revision += 1
    }

    mutating func setShuffled(_ shuffled: Bool) {
        self.shuffled = shuffled
        revision += 1
    }

    /// `{"keys":[…]}` bodies: the served order first, then (when shuffled) its other rotations and
    /// their reverses, so a fetch picks one without serialising anything.
    func servedBodies() -> [String] {
        let orders = shuffled ? Self.orders(published) : [published]
        return orders.map { JWKSet(keys: $0).json.serialized }
    }

    private static func orders(_ keys: [SigningKey]) -> [[SigningKey]] {
        guard keys.count > 1 else { return [keys] }
        var orders: [[SigningKey]] = []
        for shift in 0..<keys.count {
            let rotated = Array(keys[shift...] + keys[..<shift])
            orders.append(rotated)
            orders.append(rotated.reversed())
        }
        return orders
    }
}
