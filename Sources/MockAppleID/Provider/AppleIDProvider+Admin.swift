/// Control and inspection: the operations behind the admin API and the embedding library.
extension AppleIDProvider {
    /// Every persona, in scenario order (created ones last).
    public func personas() async -> [Persona] { await state.allPersonas() }

    public func persona(_ id: String) async -> Persona? { await state.persona(id) }

    /// Adds a persona.
    public func createPersona(_ persona: Persona) async throws(PersonaError) {
        try await state.create(persona)
    }

    /// Replaces a persona (matched by id). Consents stay; tokens issued later show the new data.
    public func updatePersona(_ persona: Persona) async throws(PersonaError) {
        try await state.update(persona)
    }

    /// The headless setting, if on.
    public func autoApprove() async -> AutoApprove? { await state.autoApprove }

    /// Turns headless sign-in on (as a persona) or off (nil).
    public func setAutoApprove(_ value: AutoApprove?) async throws(PersonaError) {
        try await state.setAutoApprove(value)
    }

    /// The persona's consent to the app group of `clientID`, if they have signed in to it.
    public func consent(personaID: String, clientID: String) async -> Consent? {
        guard let client = directory.client(clientID) else { return nil }
        return await state.consent(personaID: personaID, groupID: client.groupID)
    }

    /// How many authorization codes and access tokens the provider holds (expired ones are dropped as it goes).
    public func heldGrantCounts() async -> (codes: Int, accessTokens: Int) { await state.heldCounts }

    /// The team-scoped `sub` of a persona for a client's team.
    public func subject(personaID: String, clientID: String) -> String? {
        guard let client = directory.client(clientID) else { return nil }
        return AppleIdentifiers.subject(teamID: client.teamID, personaID: personaID)
    }
}
