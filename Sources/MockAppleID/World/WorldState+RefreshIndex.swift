import Foundation

/// The index of refresh tokens by persona and client (``WorldState/refreshTokensByOwner``), oldest
/// first. A store does not keep it: each grant carries its ``RefreshGrant/serial``, its place in its
/// persona and client's issue order, and the index is rebuilt from the grants when a world is read
/// back. So a sign-in writes its own grant's row only, not the whole list of its persona and client's
/// tokens.
extension WorldState {
    /// Holds `grant` as its persona and client's newest; when they then hold more than `limit`, the
    /// oldest are revoked.
    mutating func keepRefreshGrant(_ grant: RefreshGrant, limit: Int) {
        let owner = grant.owner
        var grant = grant
        grant.serial = Self.serial(following: refreshTokensByOwner[owner]?.last.flatMap { refreshGrants[$0]?.serial })
        refreshGrants[grant.token] = grant
        refreshTokensByOwner[owner, default: []].append(grant.token)
        guard let held = refreshTokensByOwner[owner], held.count > limit else { return }
        for token in held.prefix(held.count - limit) { refreshGrants[token] = nil }
        refreshTokensByOwner[owner] = Array(held.suffix(limit))
    }

    /// The serial after `serial` (0 after none); stays at `Int.max` rather than overflow.
    private static func serial(following serial: Int?) -> Int {
        guard let serial else { return 0 }
        return serial == .max ? .max : serial + 1
    }

    /// Rebuilds the index from the grants, once every row of a stored world is read. Grants stored
    /// before grants carried their serial come first, in the order of the lists such worlds kept
    /// (read back into the index by the rows of its section), and get serials below zero in that order.
    mutating func rebuildRefreshIndex() {
        var storedPositions: [String: Int] = [:]
        for tokens in refreshTokensByOwner.values {
            for (position, token) in tokens.enumerated() { storedPositions[token] = position }
        }
        var grantsByOwner: [RefreshTokenOwner: [RefreshGrant]] = [:]
        for grant in refreshGrants.values { grantsByOwner[grant.owner, default: []].append(grant) }
        refreshTokensByOwner = TrackedMap()
        for (owner, grants) in grantsByOwner {
            let unnumbered = grants.filter { $0.serial == nil }.sorted {
                // Tokens no stored list names (none, in a world this version wrote) come first.
                let positions = (storedPositions[$0.token] ?? -1, storedPositions[$1.token] ?? -1)
                if positions.0 != positions.1 { return positions.0 < positions.1 }
                return ($0.authTime, $0.token) < ($1.authTime, $1.token)
            }
            for (index, grant) in unnumbered.enumerated() {
                var numbered = grant
                numbered.serial = index - unnumbered.count
                refreshGrants.restore(numbered, forKey: grant.token)
            }
            let numbered = grants.compactMap { grant in grant.serial.map { (serial: $0, token: grant.token) } }
            let ordered = unnumbered.map(\.token) + numbered.sorted { ($0.serial, $0.token) < ($1.serial, $1.token) }.map(\.token)
            refreshTokensByOwner.restore(ordered, forKey: owner)
        }
    }

    /// Puts back a grant another server wrote (nil: removed) and places it in the index.
    mutating func restoreRefreshGrant(_ grant: RefreshGrant?, token: String) {
        if let previous = refreshGrants[token] {
            let others = refreshTokensByOwner[previous.owner]?.filter { $0 != token } ?? []
            refreshTokensByOwner.restore(others.isEmpty ? nil : others, forKey: previous.owner)
        }
        refreshGrants.restore(grant, forKey: token)
        guard let grant else { return }
        var tokens = refreshTokensByOwner[grant.owner] ?? []
        let grants = refreshGrants
        func order(_ token: String) -> (Int, String) { (grants[token]?.serial ?? .min, token) }
        let place = tokens.lastIndex { order($0) <= order(token) }.map { $0 + 1 } ?? 0
        tokens.insert(token, at: place)
        refreshTokensByOwner.restore(tokens, forKey: grant.owner)
    }
}

extension RefreshGrant {
    /// Whose tokens this one counts with.
    var owner: RefreshTokenOwner { RefreshTokenOwner(consent: consent, clientID: clientID) }
}
