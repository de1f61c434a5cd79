import Foundation
import Synchronization

/// Client secrets whose ES256 signature has been checked, with the key that checked it and their
/// claims. Secrets are told apart by their UTF-8 bytes, not by `String`'s Unicode equivalence (a
/// secret with `K` is not the one with the Kelvin sign `K`). At most ``capacity`` secrets (each at most
/// a JWS's maximum length) are kept; when full, the cache starts again empty.
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

    private let entries = Mutex<[[UInt8]: Entry]>([:])

    func entry(for secret: String) -> Entry? {
        let key = Array(secret.utf8)
        return entries.withLock { $0[key] }
    }

    /// How many secrets are kept.
    var count: Int { entries.withLock { $0.count } }

    func remember(_ secret: String, _ entry: Entry) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[Array(secret.utf8)] = entry
        }
    }
}
