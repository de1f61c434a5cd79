import Foundation

/// A misbehaviour queued for the next matching request(s): the token endpoint failing or answering
/// late, `/auth/keys` down or slow, or the next identity token broken in one way. Transport faults
/// (a 5xx, a delay) are applied by the HTTP server; protocol faults (an Apple error anyway, a broken
/// identity token) by the provider, so they reach Swift API callers too.
public struct Fault: Sendable, Equatable, Codable, CustomStringConvertible {
    /// What goes wrong.
    public enum Kind: Sendable, Equatable, Codable {
        /// `/auth/token` answers this 5xx status with an empty body.
        case tokenServerError(status: Int)
        /// `/auth/token` answers only after this many (real) seconds.
        case tokenDelay(seconds: Double)
        /// `/auth/token` answers Apple's error (`invalid_grant` or `invalid_client`) whatever the request.
        case tokenError(AppleErrorCode)
        /// `/auth/token` answers as usual but in another shape an OAuth client must take: `token_type` `bearer` in lower
        /// case, and no `expires_in`.
        case tokenResponseShape
        /// `/auth/keys` answers this 5xx status.
        case keysUnavailable(status: Int)
        /// `/auth/keys` answers only after this many (real) seconds.
        case keysDelay(seconds: Double)
        /// The next identity token is broken this way.
        case idToken(IdentityTokenFault)
    }

    /// Which identity tokens a fault breaks, and how.
    public enum IdentityTokenFault: String, Sendable, Codable, CaseIterable {
        /// `exp` an hour ago (and `iat` a token lifetime before it), beyond any leeway.
        case expired
        /// `iat` an hour in the future.
        case notYetValid
        /// `iss` is not Apple's.
        case wrongIssuer
        /// `aud` is another client id (as in a token Apple made for another app: no `azp`).
        case wrongAudience
        /// The header names a `kid` that `/auth/keys` does not publish.
        case unknownKid
        /// The signature does not verify.
        case badSignature
        /// No `nonce` claim, even though the request sent one.
        case noNonce
        /// A `nonce` claim that is not the one the request sent.
        case wrongNonce
        /// `aud` is an array: the client and another audience, and `azp` names the client.
        case audienceArray
        /// `sub` names another user than the one who signed in.
        case otherSubject
        /// `sub` is an array: the user who signed in and another.
        case subjectArray
        /// No `sub` claim.
        case noSubject
        /// No `iss` claim.
        case noIssuer
        /// No `aud` claim.
        case noAudience
        /// No `exp` claim: a token that never expires.
        case noExpiry
        /// No `iat` claim.
        case noIssuedAt
        /// Signed by a key `/auth/keys` does not publish, under the `kid` of one it does.
        case foreignKey
        /// `alg: none` and no signature, and no `at_hash` (so that only a check of the algorithm refuses it).
        case algNone
        /// HS256, keyed with the public key's PEM text.
        case hs256PublicKey
        /// `iat` a week ago, `exp` still ahead: a token kept far longer than Apple's lifetime.
        case issuedLongAgo
        /// `exp` is 1e20: a lifetime no integer type of most parsers holds.
        case expiryFarFuture
        /// `exp` is a string (of a time an hour ago): an expired token whose `exp` is not a number.
        case expiryAsString
        /// Signed by the published key, with a `crit` header naming an extension no one understands.
        case unknownCriticalHeader
        /// Signed by the published key under another algorithm of its kind (RS512 for an RSA key), though its JWK says RS256.
        case otherAlgorithm
        /// Not broken: `email_verified` and `is_private_email` are the strings `"true"` and `"false"`, as Apple has
        /// sent them, whatever the scenario's `settings.booleans` says.
        case stringBooleans
    }

    /// Where a fault applies.
    public enum Target: String, Sendable, Codable {
        case token, keys, idToken
    }

    /// Assigned when queued; names the fault in the journal and the admin API.
    public internal(set) var id: Int
    public let kind: Kind
    /// Only requests (or tokens) for this client id; nil matches every client.
    public let clientID: String?
    /// How many more matching requests it applies to; nil applies to every one until cleared.
    public internal(set) var remaining: Int?

    public init(_ kind: Kind, clientID: String? = nil, count: Int? = 1) {
        self.id = 0
        self.kind = kind
        self.clientID = clientID
        self.remaining = count
    }

    /// The most (real) seconds a delay fault may hold a request.
    public static let longestDelay: Double = 120
    /// The most requests a counted fault may apply to.
    public static let largestCount = 10_000

    public var target: Target {
        switch kind {
        case .tokenServerError, .tokenDelay, .tokenError, .tokenResponseShape: return .token
        case .keysUnavailable, .keysDelay: return .keys
        case .idToken: return .idToken
        }
    }

    /// Whether the fault is applied by the HTTP server rather than the provider.
    public var isTransport: Bool {
        switch kind {
        case .tokenServerError, .tokenDelay, .keysUnavailable, .keysDelay: return true
        case .tokenError, .tokenResponseShape, .idToken: return false
        }
    }

    public var description: String {
        let what: String
        switch kind {
        case let .tokenServerError(status): what = "/auth/token answers \(status)"
        case let .tokenDelay(seconds): what = "/auth/token answers after \(seconds) s"
        case let .tokenError(code): what = "/auth/token answers \(code.rawValue)"
        case .tokenResponseShape: what = "/auth/token answers with token_type bearer and no expires_in"
        case let .keysUnavailable(status): what = "/auth/keys answers \(status)"
        case let .keysDelay(seconds): what = "/auth/keys answers after \(seconds) s"
        case let .idToken(fault): what = "next identity token: \(fault.rawValue)"
        }
        let scope = clientID.map { " for \($0)" } ?? ""
        let times = remaining.map { " (\($0) more)" } ?? " (every time)"
        return "#\(id) \(what)\(scope)\(times)"
    }
}

/// The queued faults, in the order they were queued.
struct FaultQueue: Sendable, Codable {
    private(set) var faults: [Fault] = []
    private var nextID = 1

    /// The most faults queued at once.
    static let capacity = 256

    mutating func enqueue(_ fault: Fault) throws(FaultSpecError) -> Fault {
        guard faults.count < Self.capacity else { throw FaultSpecError("at most \(Self.capacity) faults can be queued; clear some first") }
        var queued = fault
        queued.id = nextID
        nextID += 1
        faults.append(queued)
        return queued
    }

    /// Where the first fault for `target` and `clientID` that `accept` wants is queued.
    func index(for target: Target, clientID: String?, where accept: (Fault) -> Bool = { _ in true }) -> Int? {
        faults.firstIndex { $0.target == target && ($0.clientID == nil || $0.clientID.sameBytes(as: clientID)) && accept($0) }
    }

    /// Takes the fault at `index` (from ``index(for:clientID:where:)``), counting it down.
    mutating func take(at index: Int) -> Fault {
        let fault = faults[index]
        if let remaining = fault.remaining {
            if remaining <= 1 { faults.remove(at: index) } else { faults[index].remaining = remaining - 1 }
        }
        return fault
    }

    mutating func remove(id: Int) -> Bool {
        guard let index = faults.firstIndex(where: { $0.id == id }) else { return false }
        faults.remove(at: index)
        return true
    }

    mutating func removeAll() { faults.removeAll() }

    typealias Target = Fault.Target
}
