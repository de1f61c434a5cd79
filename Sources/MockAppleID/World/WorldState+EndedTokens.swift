import Foundation

/// A refresh token that ended because its persona stopped using Sign in with Apple with the app
/// (Settings › Sign in with Apple › Stop Using; the admin API's `revoke-consent`).
struct EndedRefreshToken: Sendable, Codable {
    let clientID: String
    let consent: ConsentKey
    let endedAt: Date
}

/// The refresh tokens the persona's own revocation ended, remembered so that a refresh with one is
/// answered as Apple answers a client the user revoked (TN3107: `invalid_request`), not as an unknown
/// token. Tokens revoked through `/auth/revoke`, or ended by the account's deletion, are simply gone.
extension WorldState {
    /// The most such tokens remembered; beyond it the longest-ended are forgotten (and then answer as unknown).
    static let endedRefreshTokenCapacity = 10_000

    /// Remembers the refresh tokens of `key` as ended by the persona at `now`.
    mutating func rememberRefreshTokensEndedByUser(of key: ConsentKey, at now: Date) {
        for (owner, tokens) in refreshTokensByOwner.storage where owner.consent == key {
            for token in tokens { refreshTokensEndedByUser[token] = EndedRefreshToken(clientID: owner.clientID, consent: key, endedAt: now) }
        }
        guard refreshTokensEndedByUser.count > Self.endedRefreshTokenCapacity else { return }
        // Down to nine tenths, so that a long run of revocations sorts the tokens once per thousand.
        let kept = Self.endedRefreshTokenCapacity * 9 / 10
        let dropped = Set(refreshTokensEndedByUser.storage.sorted { ($0.value.endedAt, $0.key) < ($1.value.endedAt, $1.key) }
            .prefix(refreshTokensEndedByUser.count - kept).map(\.key))
        refreshTokensEndedByUser.removeAll { token, _ in dropped.contains(token) }
    }

    /// The ended token `token` of `clientID`, if its persona's revocation ended it.
    func refreshTokenEndedByUser(_ token: String, clientID: String) -> EndedRefreshToken? {
        guard let ended = refreshTokensEndedByUser[exactly: token], ended.clientID.sameBytes(as: clientID) else { return nil }
        return ended
    }
}
