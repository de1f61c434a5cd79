import Foundation
import Synchronization

/// Client secrets whose ES256 signature has been checked, with the key that checked it and their
/// claims. At most ``capacity`` secrets (each at most a JWS's maximum length) are kept; when full,
/// the cache starts again empty.
final class SignedSecretCache: Sendable {
    /// A secret whose signature verified.
    struct Entry: Sendable {
        /// The `kid` of its header.
        let kid: String
        /// The raw public key the signature verified against.
        let publicKey: Data
        /// Its payload.
        let claims: JSONValue
    }

    /// The most secrets kept.
    static let capacity = 64

    private let entries = Mutex<[String: Entry]>([:])

    func entry(for secret: String) -> Entry? {
        entries.withLock { $0[secret] }
    }

    func remember(_ secret: String, _ entry: Entry) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[secret] = entry
        }
    }
}
