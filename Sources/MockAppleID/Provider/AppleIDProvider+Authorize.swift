import Foundation

/// What `/auth/authorize` does with a valid request.
public enum AuthorizeOutcome: Sendable {
    /// Someone has to choose a persona and press Continue or Cancel.
    case consentRequired(ConsentPrompt)
    /// Answered at once (auto-approve): deliver to the relying party.
    case delivered(AuthorizationDelivery)
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
    /// Validates an authorization request and answers it (auto-approve) or asks for consent. A
    /// configuration error is thrown: it is shown on the server's own page, never redirected.
    public func authorize(_ parameters: FormParameters, origin: RequestOrigin = .swift) throws(AppleError) -> AuthorizeOutcome {
        try answering(.authorize, origin: origin, clientID: parameters.first("client_id")) { (now, events) throws(AppleError) in
            let (request, auto, choices) = try world.read { state in
                Result { () throws(AppleError) in
                    let request = try AuthorizationValidator(directory: state.directory, pkce: settings.pkce).validate(parameters)
                    let choices = state.personas.filter { !state.deletedAccounts.contains($0.id) }.map {
                        PersonaChoice(persona: $0, consent: state.consent(personaID: $0.id, groupID: request.client.groupID))
                    }
                    return (request, state.autoApprove, choices)
                }
            }.get()
            if let auto {
                let decision = ConsentDecision.approve(personaID: auto.persona, emailChoice: auto.emailChoice, name: nil)
                return .delivered(try complete(request, decision: decision, now: now, events: &events))
            }
            events.append(.consentPageShown(clientID: request.client.id))
            return .consentRequired(ConsentPrompt(request: request, choices: choices))
        }
    }

    /// Completes an authorization with the person's decision. The request parameters are validated
    /// again, as the consent form carries them back unchanged.
    public func completeAuthorization(
        _ parameters: FormParameters, decision: ConsentDecision, origin: RequestOrigin = .swift
    ) throws(AppleError) -> AuthorizationDelivery {
        try answering(.authorize, origin: origin, clientID: parameters.first("client_id")) { (now, events) throws(AppleError) in
            let request = try world.read { state in
                Result { () throws(AppleError) in try AuthorizationValidator(directory: state.directory, pkce: settings.pkce).validate(parameters) }
            }.get()
            return try complete(request, decision: decision, now: now, events: &events)
        }
    }

    private func complete(
        _ request: AuthorizationRequest, decision: ConsentDecision, now: Date, events: inout [DomainEvent]
    ) throws(AppleError) -> AuthorizationDelivery {
        var fields: [FormParameters.Pair] = []
        if let state = request.state { fields.append(.init("state", state)) }
        guard case let .approve(personaID, emailChoice, editedName) = decision else {
            fields.append(.init("error", "user_cancelled_authorize"))
            world.commit(at: now) { _, events in events.append(.signInCancelled(clientID: request.client.id)) }.value(addingEventsTo: &events)
            events.append(.delivered(mode: request.responseMode.rawValue, redirectURI: request.redirectURI))
            return delivery(request, fields)
        }
        let code = AppleIdentifiers.opaqueToken(prefix: "c")
        let (signIn, fault) = try world.commit(at: now) { (state, events) throws(AppleError) in
            let signIn = try state.approve(SignInRequest(request, personaID: personaID, emailChoice: emailChoice),
                                           code: code, now: now, limits: grantLimits, events: &events)
            let fault = request.includesIDToken ? state.takeFault(.idToken, clientID: request.client.id, transport: false, events: &events) : nil
            return (signIn, fault)
        }.value(addingEventsTo: &events)
        fields.append(.init("code", code))
        events.append(.delivered(mode: request.responseMode.rawValue, redirectURI: request.redirectURI))
        if request.includesIDToken {
            let identity = IdentityResolver.identity(of: signIn.persona, relayAddress: signIn.relayAddress, subject: signIn.subject,
                                                     consent: signIn.consent, client: request.client, transferSubject: signIn.transferSubject)
            let token = try signIdentityToken(identity, grant: .authorization(code: code, nonce: request.nonce, authTime: signIn.authTime),
                                              now: now, fault: fault?.identityTokenFault)
            fields.append(.init("id_token", token))
        }
        if signIn.isFirstConsent && !signIn.consent.scopes.isEmpty {
            fields.append(.init("user", IdentityResolver.userJSON(
                persona: signIn.persona, relayAddress: signIn.relayAddress, consent: signIn.consent,
                name: .sent(for: signIn.persona, edited: editedName))))
        }
        return delivery(request, fields)
    }

    private func delivery(_ request: AuthorizationRequest, _ fields: [FormParameters.Pair]) -> AuthorizationDelivery {
        AuthorizationDelivery(redirectURI: request.redirectURI, mode: request.responseMode, fields: FormParameters(fields))
    }
}

extension Fault {
    /// The identity-token fault, if this is one.
    var identityTokenFault: IdentityTokenFault? {
        if case let .idToken(fault) = kind { return fault }
        return nil
    }
}
