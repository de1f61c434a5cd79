import Foundation

/// A loaded scenario: the registered world (teams, apps, keys), the personas, Apple's knobs and the
/// clock's starting point. Parsed once at start; the provider's mutable state starts from it.
public struct Scenario: Sendable {
    public var name: String
    public var settings: ProviderSettings
    /// Published in `/auth/keys` in this order.
    public var signingKeys: [SigningKey]
    /// The `kid` of the key that signs identity tokens.
    public var activeSigningKeyID: String
    public var teams: [Team]
    public var groups: [AppGroup]
    public var personas: [Persona]
    /// When set, `/auth/authorize` answers at once as this persona (headless mode).
    public var autoApprove: AutoApprove?
    /// The clock's starting mode.
    public var clock: MockClock.Mode
    /// Faults queued from the start (and again after every reset).
    public var faults: [Fault] = []
    /// Steps replayed by `scenario run` or the admin API's timeline.
    public var timeline = Timeline(steps: [])

    public init(
        name: String, settings: ProviderSettings, signingKeys: [SigningKey], activeSigningKeyID: String,
        teams: [Team], groups: [AppGroup], personas: [Persona], autoApprove: AutoApprove?, clock: MockClock.Mode
    ) {
        self.name = name
        self.settings = settings
        self.signingKeys = signingKeys
        self.activeSigningKeyID = activeSigningKeyID
        self.teams = teams
        self.groups = groups
        self.personas = personas
        self.autoApprove = autoApprove
        self.clock = clock
    }
}

/// Headless sign-in: which persona approves every authorization, sharing or hiding their email.
public struct AutoApprove: Sendable, Equatable, Codable {
    public var persona: String
    /// nil uses the persona's own default choice.
    public var emailChoice: EmailChoice?

    public init(persona: String, emailChoice: EmailChoice? = nil) {
        self.persona = persona
        self.emailChoice = emailChoice
    }
}
