import Crypto
import Foundation

/// Identifiers in the shapes Apple uses, so relying parties' parsers and column widths see real ones.
public enum AppleIdentifiers {
    /// The team-scoped user id: `dddddd.<32 hex>.dddd`, e.g. `000148.f06d822ce0b2483aaa97d273b0978325.1717`.
    /// Derived from team and persona, so it is stable across restarts and differs between teams.
    public static func subject(teamID: String, personaID: String) -> String {
        subjectShaped("sub|\(teamID)|\(personaID)")
    }

    /// A user's transfer identifier for the recipient team `teamID` (same shape as a `sub`; stable, and
    /// the same for every app transferred to that team).
    public static func transferSubject(teamID: String, personaID: String) -> String {
        subjectShaped("transfer|\(teamID)|\(personaID)")
    }

    private static func subjectShaped(_ seed: String) -> String {
        let digest = SHA256.hash(data: Array(seed.utf8))
        return digest.withUnsafeBytes { digest in
            let head = 100 + Int(digest[16]) % 900
            let tail = 1000 + (Int(digest[17]) << 8 | Int(digest[18])) % 9000
            return "000\(head).\(Hex.encode(digest.prefix(16))).\(tail)"
        }
    }

    /// The persona's private relay address for a team: 10 lowercase letters and digits at `domain`, one per
    /// user per team (the same local part whichever of ``RelayOptions/AddressDomain`` the address is given at).
    public static func relayEmail(teamID: String, personaID: String, domain: RelayOptions.AddressDomain) -> String {
        "\(relayLocalPart(teamID: teamID, personaID: personaID))@\(domain.rawValue)"
    }

    private static let relayAlphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// The part of a relay address before the `@`.
    static func relayLocalPart(teamID: String, personaID: String) -> String {
        let digest = SHA256.hash(data: Array("relay|\(teamID)|\(personaID)".utf8))
        return digest.withUnsafeBytes { digest in
            String(unsafeUninitializedCapacity: 10) { text in
                for index in 0..<10 { text[index] = relayAlphabet[Int(digest[index]) % relayAlphabet.count] }
                return 10
            }
        }
    }

    /// A JWT id as Apple's notifications carry it: 16 random bytes, base64url (22 characters).
    public static func jwtID() -> String {
        Base64URL.encode(randomBytes(16))
    }

    /// An opaque code or token: `prefix` + 32 hex + `.0.` + 4 lowercase letters + `.` + 22 base64url,
    /// like `c3944a20072b7446b97633646556204f8.0.rruy.Gjgud84EqqpCvP31MrudDw`.
    /// Prefixes: `c` codes, `a` access tokens, `r` refresh tokens.
    public static func opaqueToken(prefix: Character) -> String {
        let random = randomBytes(32)
        let hex = Hex.encode(random.prefix(16))
        let tail = Base64URL.encode(random.suffix(16))
        return "\(prefix)\(hex).0.\(randomLetters(4)).\(tail)"
    }

    /// `count` bytes from the system's CSPRNG (through ``RandomBytes``' pool).
    static func randomBytes(_ count: Int) -> [UInt8] { RandomBytes.take(count) }

    /// `count` lowercase letters, each equally likely: bytes from 234 up (where `% 26` would favour
    /// the first letters) are drawn again.
    static func randomLetters(_ count: Int) -> String {
        var letters: [UInt8] = []
        while letters.count < count {
            for byte in randomBytes(8) where byte < 234 && letters.count < count {
                letters.append(UInt8(ascii: "a") + byte % 26)
            }
        }
        return String(decoding: letters, as: UTF8.self)
    }
}
