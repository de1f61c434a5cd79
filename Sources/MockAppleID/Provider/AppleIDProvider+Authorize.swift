import Foundation

/// What `/auth/authorize` does with a request.
public enum AuthorizeOutcome: Sendable {
    /// A configuration error: shown on the server's own page, never redirected.
    case rejected(AuthorizeError)
    /// Valid, and someone has to choose a persona and press Continue or Cancel.
    case consentRequired(ConsentPrompt)
    /// Answered (auto-approve): deliver to the relying party.
    case delivered(AuthorizationDelivery, summary: String)
}

/// What the consent page shows: the request and each persona with their consent to the app group.
public struct ConsentPrompt: Sendable {
    public let request: AuthorizationRequest
    public let choices: [PersonaChoice]
}

/// A persona on the consent page; `consent` is set when they have signed in to this app group before.
public struct PersonaChoice: Sendable {
    public let persona: Persona
    public let consent: Consent?
}

/// The person's answer on the consent page.
public enum ConsentDecision: Sendable, Equatable {
    /// Cancel: the relying party gets `error=user_cancelled_authorize`.
    case cancel
    /// Continue as `personaID`, sharing or hiding the email (nil: the persona's default) and with the
    /// name as edited (nil: the persona's name). Both only matter on a first consent.
    case approve(personaID: String, emailChoice: EmailChoice?, name: PersonName?)
}

extension AppleIDProvider {
    /// Validates an authorization request and either rejects it, answers it (auto-approve) or asks for consent.
    public func authorize(_ parameters: FormParameters) async -> AuthorizeOutcome {
        let request: AuthorizationRequest
        switch validator.validate(parameters) {
        case let .failure(error): return .rejected(error)
        case let .success(valid): request = valid
        }
        if let auto = await state.autoApprove {
            switch await complete(request, decision: .approve(personaID: auto.persona, emailChoice: auto.emailChoice, name: nil)) {
            case let .success((delivery, summary)): return .delivered(delivery, summary: "auto-approve: " + summary)
            case let .failure(error): return .rejected(error)
            }
        }
        var choices: [PersonaChoice] = []
        for persona in await state.allPersonas() {
            choices.append(PersonaChoice(persona: persona, consent: await state.consent(personaID: persona.id, groupID: request.client.groupID)))
        }
        return .consentRequired(ConsentPrompt(request: request, choices: choices))
    }

    /// Completes an authorization with the person's decision. The request parameters are validated
    /// again, as the consent form carries them back unchanged.
    public func completeAuthorization(
        _ parameters: FormParameters, decision: ConsentDecision
    ) async -> Result<(AuthorizationDelivery, summary: String), AuthorizeError> {
        switch validator.validate(parameters) {
        case let .failure(error): return .failure(error)
        case let .success(request): return await complete(request, decision: decision)
        }
    }

    func complete(
        _ request: AuthorizationRequest, decision: ConsentDecision
    ) async -> Result<(AuthorizationDelivery, summary: String), AuthorizeError> {
        var fields: [FormParameters.Pair] = []
        if let state = request.state { fields.append(.init("state", state)) }
        guard case let .approve(personaID, emailChoice, editedName) = decision else {
            fields.append(.init("error", "user_cancelled_authorize"))
            return .success((delivery(request, fields), "user cancelled"))
        }
        let code = AppleIdentifiers.opaqueToken(prefix: "c")
        let signIn: ApprovedSignIn
        switch await state.approve(request, personaID: personaID, emailChoice: emailChoice, code: code, now: clock.now, limits: grantLimits) {
        case let .failure(error): return .failure(error)
        case let .success(approved): signIn = approved
        }
        fields.append(.init("code", code))
        if request.includesIDToken {
            let identity = IdentityResolver.identity(of: signIn.persona, consent: signIn.consent, client: request.client)
            do {
                let token = try signIdentityToken(identity, grant: .authorization(code: code, nonce: request.nonce, authTime: signIn.authTime))
                fields.append(.init("id_token", token))
            } catch {
                return .failure(AuthorizeError(.invalidRequest, "Your request could not be completed.", reason: "signing failed: \(error)"))
            }
        }
        if signIn.isFirstConsent && !signIn.consent.scopes.isEmpty {
            let name = editedName ?? PersonName(firstName: signIn.persona.firstName, lastName: signIn.persona.lastName)
            fields.append(.init("user", IdentityResolver.userJSON(
                persona: signIn.persona, consent: signIn.consent, name: name, teamID: request.client.teamID)))
        }
        let summary = "\(signIn.isFirstConsent ? "first" : "returning") sign-in of persona \(personaID) to \(request.client.id)"
        return .success((delivery(request, fields), summary))
    }

    private func delivery(_ request: AuthorizationRequest, _ fields: [FormParameters.Pair]) -> AuthorizationDelivery {
        AuthorizationDelivery(redirectURI: request.redirectURI, mode: request.responseMode, fields: FormParameters(fields))
    }
}
