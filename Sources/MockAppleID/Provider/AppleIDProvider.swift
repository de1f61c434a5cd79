import Foundation

/// The Sign in with Apple provider: Apple's protocol over one scenario, one clock and one state.
///
/// This is the facade the HTTP layer, the admin API and embedding Swift suites all call, so every
/// way of driving it behaves identically. Keys, the directory and the JWKS are prepared once at
/// start; per request it only validates, updates state and signs.
public final class AppleIDProvider: Sendable {
    public let scenario: Scenario
    public let directory: Directory
    public let settings: ProviderSettings
    /// The published keys of `/auth/keys`.
    public let keySet: JWKSet
    /// The key identity tokens are signed with.
    public let signingKey: SigningKey
    public let clock: MockClock
    public let journal: RequestJournal

    let state: ProviderState
    let validator: AuthorizationValidator
    let secretVerifier: ClientSecretVerifier
    let claimsBuilder: IdentityTokenClaims
    /// `/auth/keys` body, serialised once.
    public let keySetJSON: String
    /// Where ``reset()`` puts the clock back to.
    let initialClockMode: MockClock.Mode

    /// Sets up a provider for `scenario`; `clock` defaults to one started as the scenario says.
    public init(scenario: Scenario, clock: MockClock? = nil) throws(ProviderSetupError) {
        guard let signingKey = scenario.signingKeys.first(where: { $0.kid == scenario.activeSigningKeyID }) else {
            throw ProviderSetupError(message: "no signing key has kid \(scenario.activeSigningKeyID)")
        }
        self.scenario = scenario
        self.directory = Directory(teams: scenario.teams, groups: scenario.groups)
        self.settings = scenario.settings
        self.keySet = JWKSet(keys: scenario.signingKeys)
        self.signingKey = signingKey
        self.clock = clock ?? MockClock(scenario.clock)
        self.journal = RequestJournal()
        self.state = ProviderState(personas: scenario.personas, autoApprove: scenario.autoApprove)
        self.validator = AuthorizationValidator(directory: directory)
        self.secretVerifier = ClientSecretVerifier(settings: scenario.settings)
        self.claimsBuilder = IdentityTokenClaims(issuer: scenario.settings.issuer, options: scenario.settings.claims)
        self.keySetJSON = keySet.json.serialized
        self.initialClockMode = self.clock.currentMode
    }

    /// Back to the start: the scenario's personas and auto-approve, the clock as it was when the
    /// provider was made; no consents, codes, tokens or journal entries.
    public func reset() async {
        await state.reset(personas: scenario.personas, autoApprove: scenario.autoApprove)
        clock.setMode(initialClockMode)
        journal.clear()
    }

    var grantLimits: GrantLimits {
        GrantLimits(codeLifetime: settings.codeLifetime, accessTokenLifetime: settings.accessTokenLifetime)
    }

    /// Signs identity-token claims with the active key.
    func signIdentityToken(_ identity: SignedInIdentity, grant: IdentityTokenClaims.Grant) throws -> String {
        try JWS.sign(payload: claimsBuilder.claims(for: identity, grant: grant, now: clock.now), with: signingKey)
    }
}

/// A scenario that cannot start a provider.
public struct ProviderSetupError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
