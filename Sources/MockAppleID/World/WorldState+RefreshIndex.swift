import Foundation

/// The index of refresh tokens by persona and client (``WorldState/refreshTokensByOwner``), oldest
/// first. A store does not keep it: each grant carries its ``RefreshGrant/serial``, its place in its
/// persona and client's issue order, and the index is rebuilt from the grants when a world is read
/// back or replaced. So a sign-in writes its own grant's row only, not the whole list of its persona
/// and client's tokens.
extension WorldState {
    /// Holds `grant` as its persona and client's newest; when they then hold more than `limit`, the
    /// oldest are revoked.
    mutating func keepRefreshGrant(_ grant: RefreshGrant, limit: Int) {
        let owner = grant.owner
        var grant = grant
        grant.serial = Self.serial(following: refreshTokensByOwner[owner]?.last.flatMap { refreshGrants[$0]?.serial })
        refreshGrants[grant.token] = grant
        refreshTokensByOwner[owner, default: []].append(grant.token)
        guard let held = refreshTokensByOwner[owner]?.count, held > limit else { return }
        for token in refreshTokensByOwner[owner, default: []].prefix(held - limit) { refreshGrants[token] = nil }
        refreshTokensByOwner[owner, default: []].removeFirst(held - limit)
    }

    /// Revokes one refresh token, taking it out of the index.
    mutating func dropRefreshGrant(_ token: String) {
        guard let grant = refreshGrants[token] else { return }
        refreshGrants[token] = nil
        unindex(token, of: grant.owner)
    }

    /// Takes `token` out of `owner`'s list.
    private mutating func unindex(_ token: String, of owner: RefreshTokenOwner) {
        let others = refreshTokensByOwner[owner]?.filter { $0 != token } ?? []
        refreshTokensByOwner.restore(others.isEmpty ? nil : others, forKey: owner)
    }

    /// The serial after `serial` (0 after none); stays at `Int.max` rather than overflow.
    private static func serial(following serial: Int?) -> Int {
        guard let serial else { return 0 }
        return serial == .max ? .max : serial + 1
    }

    /// Rebuilds the index from the grants (keyed by their rows' keys), ordered by serial. Grants
    /// without one (held before grants carried it: read from an earlier store format, or from an
    /// earlier snapshot) are older than any with one; they are ordered as the index held them then,
    /// and get serials below zero and below their persona and client's lowest, in that order.
    mutating func rebuildRefreshIndex() {
        var grantsByOwner: [RefreshTokenOwner: [(token: String, grant: RefreshGrant)]] = [:]
        for (token, grant) in refreshGrants.storage { grantsByOwner[grant.owner, default: []].append((token, grant)) }
        let heldBefore = refreshTokensByOwner
        refreshTokensByOwner = TrackedMap()
        for (owner, grants) in grantsByOwner {
            var positions: [String: Int] = [:]
            for (position, token) in (heldBefore[owner] ?? []).enumerated() { positions[token] = position }
            let unnumbered = grants.filter { $0.grant.serial == nil }.sorted {
                // A token the index did not hold (it cannot be told apart otherwise) comes first.
                let places = (positions[$0.token] ?? -1, positions[$1.token] ?? -1)
                if places.0 != places.1 { return places.0 < places.1 }
                return ($0.grant.authTime, $0.token) < ($1.grant.authTime, $1.token)
            }
            var ordered = grants.compactMap { entry in entry.grant.serial.map { (serial: $0, token: entry.token) } }
            // Below zero and the lowest serial held; from Int.min up where a stored serial leaves no room
            // (only a hand-edited store gets there, and its order is then its own).
            let ceiling = min(ordered.map(\.serial).min() ?? 0, 0)
            let first = ceiling < Int.min + unnumbered.count ? Int.min : ceiling - unnumbered.count
            for (index, entry) in unnumbered.enumerated() {
                var numbered = entry.grant
                numbered.serial = first + index
                refreshGrants.restore(numbered, forKey: entry.token)
                ordered.append((first + index, entry.token))
            }
            refreshTokensByOwner.restore(ordered.sorted { ($0.serial, $0.token) < ($1.serial, $1.token) }.map(\.token), forKey: owner)
        }
    }

    /// Places a grant another server wrote, or removed, in the index; `previous` is what this copy held.
    mutating func reindexRefreshGrant(token: String, previous: RefreshGrant?) {
        if let previous { unindex(token, of: previous.owner) }
        guard let grant = refreshGrants[token] else { return }
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
