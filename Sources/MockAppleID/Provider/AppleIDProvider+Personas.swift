import Foundation

/// Personas, their Apple Accounts and their consents, and headless sign-in: what the admin API, the CLI,
/// timelines and the embedding library call. Each change is one world transition with its events.
extension AppleIDProvider {
    /// Every persona, in scenario order (created ones last), deleted accounts included.
    public func personas() -> [Persona] { world.read { $0.personas } }

    public func persona(_ id: String) -> Persona? { world.read { $0.persona(id) } }

    /// Whether the persona's Apple Account was deleted.
    public func isDeleted(personaID: String) -> Bool { world.read { $0.deletedAccounts.contains(personaID) } }

    /// Adds a persona, or re-creates one whose account was deleted (with a new `sub`).
    public func createPersona(_ persona: Persona) throws(PersonaError) {
        try world.transition(at: clock.now) { (state, events) throws(PersonaError) in try state.create(persona, events: &events) }
    }

    /// Replaces a persona (matched by id). Consents stay; tokens issued later show the new data.
    public func updatePersona(_ persona: Persona) throws(PersonaError) {
        try world.transition(at: clock.now) { (state, events) throws(PersonaError) in try state.update(persona, events: &events) }
    }

    /// The persona stops using Sign in with Apple with the app group of `clientID` (or the group
    /// named by its primary App ID): its codes and tokens end and the next sign-in is a first one.
    public func revokeConsent(personaID: String, clientID: String) throws(PersonaError) {
        let now = clock.now
        try world.transition(at: now) { (state, events) throws(PersonaError) in
            let groupID = state.directory.group(named: clientID)?.primaryAppID ?? clientID
            try state.revokeConsent(personaID: personaID, groupID: groupID, at: now, events: &events)
        }
    }

    /// Deletes the persona's Apple Account: every grant ends and sign-in is refused until it is re-created.
    public func deleteAccount(personaID: String) throws(PersonaError) {
        let now = clock.now
        try world.transition(at: now) { (state, events) throws(PersonaError) in try state.deleteAccount(personaID: personaID, at: now, events: &events) }
    }

    /// The headless setting, if on.
    public func autoApprove() -> AutoApprove? { world.read { $0.autoApprove } }

    /// Turns headless sign-in on (as a persona) or off (nil).
    public func setAutoApprove(_ value: AutoApprove?) throws(PersonaError) {
        try world.transition(at: clock.now) { (state, events) throws(PersonaError) in try state.setAutoApprove(value, events: &events) }
    }

    /// The persona's consent to the app group of `clientID` (a client id or primary App ID), if they have signed in to it.
    public func consent(personaID: String, clientID: String) -> Consent? {
        world.read { state in
            state.directory.group(named: clientID).flatMap { state.consent(personaID: personaID, groupID: $0.primaryAppID) }
        }
    }

    /// The persona's consents: the app groups they have signed in to, by primary App ID.
    public func consents(personaID: String) -> [Consent] {
        world.read { state in state.consents.values.filter { $0.personaID == personaID }.sorted { $0.groupID < $1.groupID } }
    }

    /// How many authorization codes and access tokens the provider holds (expired ones are dropped as it goes).
    public func heldGrantCounts() -> (codes: Int, accessTokens: Int) { world.read { $0.heldCounts } }

    /// The team-scoped `sub` of a persona for the team of `clientID` (a client id or primary App ID).
    public func subject(personaID: String, clientID: String) -> String? {
        world.read { state in
            state.directory.group(named: clientID).map { state.subject(personaID: personaID, teamID: $0.teamID) }
        }
    }
}
