import Foundation

/// The Sign in with Apple provider: Apple's protocol over one scenario and one ``World``.
///
/// This is the facade the HTTP layer, the admin API, timelines and embedding Swift suites all call,
/// so every way of driving it behaves identically, and every request appears in the journal. Keys
/// and the scenario are parsed once at start; per request it reads the clock once, validates,
/// changes the world in one locked step and signs.
public final class AppleIDProvider: Sendable {
    public let scenario: Scenario
    public let settings: ProviderSettings
    /// The one owner of everything that changes, with its event log and clock.
    public let world: World

    /// The loaded timeline and how far it has run (the scenario's own, until another is loaded).
    public let timeline: TimelinePlayer
    let secretVerifier: ClientSecretVerifier
    let claimsBuilder: IdentityTokenClaims

    /// Sets up a provider for `scenario`; `clock` defaults to one started as the scenario says.
    public init(scenario: Scenario, clock: MockClock? = nil) throws(ProviderSetupError) {
        let initial: WorldState
        do { initial = try WorldState(scenario: scenario) } catch {
            throw ProviderSetupError(message: "signing keys: \(error.description)")
        }
        self.scenario = scenario
        self.settings = scenario.settings
        let world = World(initial: initial, clock: clock ?? MockClock(scenario.clock), notificationOptions: scenario.settings.notifications)
        self.world = world
        self.timeline = TimelinePlayer(timeline: scenario.timeline) { world.save($0, section: TimelinePlayer.section) }
        self.secretVerifier = ClientSecretVerifier(settings: scenario.settings)
        self.claimsBuilder = IdentityTokenClaims(issuer: scenario.settings.issuer, options: scenario.settings.claims)
    }

    /// The world's clock.
    public var clock: MockClock { world.clock }

    /// Apple-endpoint requests, from the event log.
    public var journal: RequestJournal { RequestJournal(log: world.events) }

    /// The registrations as they are now.
    public var directory: Directory { world.read { $0.directory } }

    /// The keys `/auth/keys` publishes now, in served order.
    public var keySet: JWKSet { world.read { JWKSet(keys: $0.keys.published) } }

    /// The `/auth/keys` body (in one of several orders when the scenario shuffles it).
    public var keySetJSON: String { keySetBodies().randomElement() ?? "{\"keys\":[]}" }

    /// Back to the start in one step: the scenario's registrations, personas, keys, auto-approve and
    /// faults, the clock as it was when the provider was made; no consents, codes, tokens or events.
    public func reset() {
        world.reset()
        timeline.load(scenario.timeline, origin: .scenario)
    }

    var grantLimits: GrantLimits {
        GrantLimits(codeLifetime: settings.codeLifetime, accessTokenLifetime: settings.accessTokenLifetime,
                    refreshTokensPerClient: settings.refreshTokensPerClient)
    }

    /// Signs identity-token claims with the active key, broken as `fault` says.
    func signIdentityToken(_ identity: SignedInIdentity, grant: IdentityTokenClaims.Grant, now: Date,
                           fault: Fault.IdentityTokenFault?) throws(AppleError) -> String {
        let key = world.read { $0.keys.active }
        let claims = claimsBuilder.claims(for: identity, grant: grant, now: now, fault: fault)
        do {
            switch fault {
            case .foreignKey: return try ForgedJWS.signedByUnpublishedKey(payload: claims, posingAs: key)
            case .algNone: return ForgedJWS.unsigned(payload: claims, kid: key.kid)
            case .hs256PublicKey: return ForgedJWS.hs256WithPublicKey(payload: claims, key: key)
            case .unknownCriticalHeader: return try ForgedJWS.withUnknownCriticalHeader(payload: claims, key: key)
            case .otherAlgorithm: return try ForgedJWS.underOtherAlgorithm(payload: claims, key: key)
            default:
                return try JWS.sign(payload: claims, with: key, headerKID: fault == .unknownKid ? Self.unknownKID : nil,
                                    corruptSignature: fault == .badSignature)
            }
        } catch {
            throw AppleError(.invalidRequest, description: "Your request could not be completed.",
                             reason: "signing the identity token failed: \(error)")
        }
    }

    /// The `kid` a token broken with ``Fault/IdentityTokenFault/unknownKid`` names.
    public static let unknownKID = "mockUnknwn"

    /// Runs an endpoint's work and journals it: on success the entry's reason lists what `work` put in
    /// `events` (the world's events, which transitions log as well, and notes on the answer); on failure,
    /// the real reason. Over HTTP the entry waits in the request's ``RequestDraft`` until the answer is
    /// final; otherwise it is written now.
    func answering<T>(_ endpoint: AppleEndpoint, origin: RequestOrigin, clientID: String?,
                      _ work: (Date, inout [DomainEvent]) throws(AppleError) -> T) throws(AppleError) -> T {
        let now = clock.now
        var events: [DomainEvent] = []
        do {
            let result = try work(now, &events)
            decided(endpoint, origin: origin, clientID: clientID, now: now, events: events, failure: nil)
            return result
        } catch {
            decided(endpoint, origin: origin, clientID: clientID, now: now, events: events, failure: error)
            throw error
        }
    }

    private func decided(_ endpoint: AppleEndpoint, origin: RequestOrigin, clientID: String?, now: Date, events: [DomainEvent],
                         failure: AppleError?) {
        let record = RequestRecord(endpoint: endpoint, origin: origin, clientID: clientID, status: failure == nil ? 200 : 400,
                                   error: failure?.code.rawValue,
                                   reason: failure?.reason ?? events.map(\.description).joined(separator: "; "))
        if let draft = RequestDraft.current, draft.origin == origin {
            draft.keep(record, at: now)
        } else {
            world.record(.request(record), at: now)
        }
    }

    /// Journals a request to one of Apple's endpoints answered outside ``perform(_:_:)`` (`/auth/keys` answered on
    /// the event loop), with what it served.
    public func journalAnswered(_ endpoint: AppleEndpoint, origin: RequestOrigin, served reason: String) {
        let draft = RequestDraft(endpoint: endpoint, origin: origin)
        draft.note(reason: reason)
        journal(draft, .answered)
    }

    /// Writes the journal entry of an HTTP request that has ended: the provider's, unless the request
    /// ended otherwise (a body that could not be read, a fault, a store that failed). The one place
    /// the journal is written for HTTP requests.
    func journal(_ draft: RequestDraft, _ ending: RequestEnding) {
        let decision = draft.decision
        let record: RequestRecord
        switch ending {
        case .answered:
            record = decision?.record ?? RequestRecord(endpoint: draft.endpoint, origin: draft.origin, clientID: draft.clientID,
                                                       status: 200, error: nil, reason: draft.reason ?? "answered")
        case let .refused(error):
            record = decision?.record ?? RequestRecord(endpoint: draft.endpoint, origin: draft.origin, clientID: draft.clientID,
                                                       status: 400, error: error.code.rawValue, reason: error.reason)
        case let .failed(status, reason):
            record = RequestRecord(endpoint: decision.map { AppleEndpoint(rawValue: $0.record.endpoint) ?? draft.endpoint } ?? draft.endpoint,
                                   origin: draft.origin, clientID: draft.clientID, status: status, error: nil, reason: reason)
        }
        world.record(.request(record), at: decision?.time ?? clock.now)
    }
}

/// A scenario that cannot start a provider.
public struct ProviderSetupError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
