import Foundation

/// An authorization code: single use, bound to client, redirect URI and PKCE challenge.
struct IssuedCode: Sendable, Codable {
    let code: String
    let clientID: String
    let consent: ConsentKey
    /// nil for codes that carried no redirect URI (native); then the exchange must send none.
    let redirectURI: String?
    let nonce: String?
    let challenge: PKCEChallenge?
    let issuedAt: Date
    let authTime: Date
    /// `real_user_status` of a native first authorization (its exchange may carry it); nil otherwise.
    let realUserStatus: RealUserStatus?
    var redeemed: Bool = false
}

/// A refresh token: valid until revoked, together with the consent it came from.
struct RefreshGrant: Sendable, Codable {
    let token: String
    let clientID: String
    let consent: ConsentKey
    let authTime: Date
    /// The grant's place in its persona and client's issue order (see `WorldState+RefreshIndex.swift`);
    /// nil only in grants read from an earlier store format or snapshot, until the index is rebuilt.
    var serial: Int?
}

/// An access token: good for `/auth/revoke` (and user migration) for an hour.
struct AccessGrant: Sendable, Codable {
    let token: String
    let clientID: String
    let consent: ConsentKey
    let expiresAt: Date
}
