import Crypto
import Foundation

/// OIDC `at_hash` / `c_hash`: base64url of the left half of SHA-256 over the ASCII token.
public enum TokenHash {
    /// The hash claim value for `token`.
    public static func of(_ token: String) -> String {
        let digest = SHA256.hash(data: Data(token.utf8))
        return Base64URL.encode(Data(digest).prefix(16))
    }
}
