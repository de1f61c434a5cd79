import Foundation

/// Runs one timeline step through the provider's own operations (origin `timeline`) and checks
/// its expectations.
struct TimelineStepRunner {
    let provider: AppleIDProvider
    var memory: TimelineMemory

    /// What a step produced that expectations look at.
    struct Observation {
        var idToken: String?
        var user: Bool?
        /// The relay's SMTP reply to a `sendMail` step.
        var smtpReply: String?
        /// The JSON answer of a step that gets no identity token (user migration); `claims` are checked on it.
        var response: JSONValue?
    }

    static let origin = RequestOrigin(channel: .timeline)

    mutating func run(_ step: TimelineStep, index: Int) -> StepOutcome {
        var failures: [String] = []
        var notes: [String] = []
        do throws(StepFailure) {
            try wait(step.when)
            let firstEvent = provider.world.events.nextSequence
            let result: Result<Observation, AppleError>
            do throws(StepFailure) { result = .success(try perform(step.action)) } catch {
                guard case let .apple(appleError) = error else { throw error }
                result = .failure(appleError)
            }
            failures = check(result, step.expect, notes: &notes)
            failures += checkNotifications(since: firstEvent, step.expect.notifications, notes: &notes)
        } catch {
            failures = [error.description]
        }
        return StepOutcome(index: index, location: step.location, summary: step.action.summary, passed: failures.isEmpty,
                           failures: failures, notes: notes)
    }

    private func wait(_ when: TimelineStep.When) throws(StepFailure) {
        do throws(TimeRange.Failure) {
            switch when {
            case .immediately: return
            case let .after(seconds): try provider.advanceClock(by: seconds)
            case let .at(date):
                if date > provider.clock.now { try provider.setClock(to: date, frozen: provider.clock.isFrozen) }
            }
        } catch {
            throw .harness("the clock could not move: \(error.description)")
        }
    }

    // MARK: Actions

    private mutating func perform(_ action: TimelineAction) throws(StepFailure) -> Observation {
        switch action {
        case let .signIn(step): return try signIn(step)
        case let .nativeSignIn(request, exchange):
            let credential = try apple { () throws(AppleError) in try provider.nativeSignIn(request, origin: Self.origin) }
            memory.client = request.bundleID
            memory.redirectURI = nil
            memory.code = credential.authorizationCode
            var observation = Observation(idToken: credential.identityToken, user: credential.fullName != nil)
            if exchange { observation.idToken = try exchangeCode(TokenCallStep(client: nil, code: nil, redirectURI: .same, secret: SecretRecipe())) }
            return observation
        case let .cancel(client):
            let cancelled = try parameters(client: client, redirectURI: nil, scopes: [], nonce: nil, idToken: false)
            let delivery = try apple { () throws(AppleError) in
                try provider.completeAuthorization(cancelled, decision: .cancel, origin: Self.origin)
            }
            guard delivery["error"] == "user_cancelled_authorize" else {
                throw .harness("the cancel did not deliver user_cancelled_authorize")
            }
            return Observation()
        case let .authorize(pairs):
            _ = try apple { () throws(AppleError) in
                try provider.authorize(FormParameters(pairs.map { FormParameters.Pair($0.0, $0.1) }), origin: Self.origin)
            }
            return Observation()
        case let .exchangeCode(call): return Observation(idToken: try exchangeCode(call))
        case let .refresh(call):
            guard let token = memory.refreshToken else { throw .harness("no refresh token yet: exchange a code first") }
            let request = try form(call, [("grant_type", "refresh_token"), ("refresh_token", token)])
            let body = try apple { () throws(AppleError) in try provider.token(request, origin: Self.origin) }
            memory.accessToken = body["access_token"]?.stringValue
            return Observation(idToken: body["id_token"]?.stringValue)
        case let .revokeToken(call, access):
            guard let token = access ? memory.accessToken : memory.refreshToken else {
                throw .harness("no \(access ? "access" : "refresh") token yet: exchange a code first")
            }
            let request = try form(call, [("token", token), ("token_type_hint", access ? "access_token" : "refresh_token")])
            try apple { () throws(AppleError) in try provider.revoke(request, origin: Self.origin) }
            return Observation()
        case let .changePersona(id, patch): try changePersona(id, patch)
        case let .revokeConsent(persona, client): try admin { () throws(PersonaError) in try provider.revokeConsent(personaID: persona, clientID: client) }
        case let .deleteAccount(persona): try admin { () throws(PersonaError) in try provider.deleteAccount(personaID: persona) }
        case let .createPersona(persona): try admin { () throws(PersonaError) in try provider.createPersona(persona) }
        case let .changeKeys(change):
            do throws(KeyRing.Failure) { try provider.changeKeys(change) } catch { throw .harness(error.description) }
        case let .shuffleKeys(on): provider.setJWKSShuffled(on)
        case let .queueFault(fault):
            do throws(FaultSpecError) { try provider.queueFault(fault) } catch { throw .harness(error.description) }
        case let .advanceClock(seconds):
            do throws(TimeRange.Failure) { try provider.advanceClock(by: seconds) } catch {
                throw .harness(error.description)
            }
        case let .notify(type, persona, app):
            do throws(NotificationError) { try provider.notify(type, personaID: persona, app: app) } catch {
                throw .harness(error.description)
            }
        case let .setNotificationURL(app, url):
            do throws(NotificationError) { try provider.setNotificationURL(url, app: app) } catch {
                throw .harness(error.description)
            }
        case let .sendMail(mail): return Observation(smtpReply: try sendMail(mail))
        case let .transferApp(app, team):
            do throws(TransferError) { try provider.transferApp(app, to: team) } catch {
                throw .harness(error.description)
            }
        case let .userMigration(step): return Observation(response: try userMigration(step))
        case let .setEmailSources(team, sources):
            do throws(EmailSourceError) { try provider.setEmailSources(sources, team: team) } catch {
                throw .harness(error.description)
            }
        case let .setRelayForwarding(persona, app, forwarding):
            try admin { () throws(PersonaError) in try provider.setRelayForwarding(forwarding, personaID: persona, app: app) }
        case let .setRelayDomain(domain): provider.setRelayDomain(domain)
        }
        return Observation()
    }

    private mutating func signIn(_ step: WebSignInStep) throws(StepFailure) -> Observation {
        let params = try parameters(client: step.client, redirectURI: step.redirectURI, scopes: step.scopes, nonce: step.nonce,
                                    idToken: step.idTokenInResponse)
        let delivery = try apple { () throws(AppleError) in
            try provider.completeAuthorization(params, decision: .approve(personaID: step.persona, emailChoice: step.emailChoice, name: nil),
                                               origin: Self.origin)
        }
        memory.client = step.client
        memory.redirectURI = params.first("redirect_uri")
        memory.code = delivery["code"]
        var observation = Observation(idToken: delivery["id_token"], user: delivery["user"] != nil)
        if step.exchange { observation.idToken = try exchangeCode(TokenCallStep(client: nil, code: nil, redirectURI: .same, secret: SecretRecipe())) }
        return observation
    }

    private func parameters(client: String, redirectURI: String?, scopes: [Scope], nonce: String?, idToken: Bool) throws(StepFailure) -> FormParameters {
        guard let registered = provider.directory.client(client) else {
            throw .harness("\(client) is not a registered client id")
        }
        var pairs: [FormParameters.Pair] = [
            .init("client_id", client), .init("redirect_uri", redirectURI ?? registered.returnURLs.first ?? ""),
            .init("response_type", idToken ? "code id_token" : "code"),
            .init("response_mode", scopes.isEmpty ? (idToken ? "fragment" : "query") : "form_post"), .init("state", "timeline"),
        ]
        if !scopes.isEmpty { pairs.append(.init("scope", scopes.map(\.rawValue).joined(separator: " "))) }
        if let nonce { pairs.append(.init("nonce", nonce)) }
        return FormParameters(pairs)
    }

    private mutating func exchangeCode(_ call: TokenCallStep) throws(StepFailure) -> String? {
        guard let code = call.code ?? memory.code else { throw .harness("no code yet: sign in first") }
        var extra: [(String, String)] = [("grant_type", "authorization_code"), ("code", code)]
        switch call.redirectURI {
        case .same: if let redirect = memory.redirectURI { extra.append(("redirect_uri", redirect)) }
        case .omitted: break
        case let .value(uri): extra.append(("redirect_uri", uri))
        }
        let request = try form(call, extra)
        let body = try apple { () throws(AppleError) in try provider.token(request, origin: Self.origin) }
        memory.accessToken = body["access_token"]?.stringValue
        memory.refreshToken = body["refresh_token"]?.stringValue
        return body["id_token"]?.stringValue
    }

    /// A token-endpoint form for `call`'s client with a client secret made as its recipe says.
    private func form(_ call: TokenCallStep, _ extra: [(String, String)]) throws(StepFailure) -> FormParameters {
        guard let clientID = call.client ?? memory.client else { throw .harness("no client yet: sign in first") }
        let pairs = [("client_id", clientID), ("client_secret", try secret(call.secret, clientID: clientID))] + extra
        return FormParameters(pairs.map { FormParameters.Pair($0.0, $0.1) })
    }

    private func secret(_ recipe: SecretRecipe, clientID: String) throws(StepFailure) -> String {
        if let literal = recipe.literal { return literal }
        let directory = provider.directory
        guard let client = directory.client(clientID), let team = directory.team(of: client), var signer = team.secretSigner else {
            throw .harness("the scenario has no private developer key (.p8) for \(clientID)'s team; a timeline needs one to sign client secrets")
        }
        if let keyID = recipe.keyID { signer = signer.presenting(keyID: keyID) }
        do {
            return try signer.make(clientID: recipe.subject ?? clientID, issuedAt: provider.clock.now.addingTimeInterval(recipe.issuedAtOffset),
                                   lifetime: recipe.lifetime, audience: recipe.audience ?? provider.settings.clientSecretAudience)
        } catch {
            throw .harness("signing the client secret failed: \(error)")
        }
    }

    private func changePersona(_ id: String, _ patch: JSONValue) throws(StepFailure) {
        guard let current = provider.persona(id) else { throw .harness("persona \"\(id)\" does not exist") }
        do {
            let encoded = try JSONValue.parse(JSONEncoder().encode(current)) ?? .object([])
            let updated = try JSONDecoder().decode(Persona.self, from: encoded.merged(with: patch).data)
            try admin { () throws(PersonaError) in try provider.updatePersona(updated) }
        } catch let error as StepFailure {
            throw error
        } catch {
            throw .harness("persona \(id) cannot take \(patch.serialized): \(error)")
        }
    }

    /// What the SMTP listener does with the message: the `RCPT TO` check, then delivery after `DATA`.
    private func sendMail(_ mail: MailStep) throws(StepFailure) -> String {
        let address: String
        switch mail.recipient {
        case let .address(value): address = value
        case let .relayAddress(persona, app):
            do throws(NotificationError) { address = try provider.relayAddress(personaID: persona, app: app) } catch {
                throw .harness(error.description)
            }
        }
        if case let .failure(rejection) = provider.checkRelayRecipient(address, sender: mail.from) { return rejection.reply }
        let data = "From: \(mail.headerFrom ?? mail.from)\r\nTo: \(address)\r\nSubject: \(mail.subject)\r\n\r\n\(mail.body)\r\n"
        return provider.deliverRelayMail(RelaySubmission(envelopeFrom: mail.from, recipients: [address], data: data)).reply
    }

    /// A team access token for the client's team, then `/auth/usermigrationinfo`.
    private mutating func userMigration(_ step: MigrationStep) throws(StepFailure) -> JSONValue {
        let call = TokenCallStep(client: step.client, code: nil, redirectURI: .omitted, secret: step.secret)
        let tokenRequest = try form(call, [("grant_type", "client_credentials"), ("scope", UserMigration.scope)])
        let token = try apple { () throws(AppleError) in try provider.token(tokenRequest, origin: Self.origin) }
        var fields: [(String, String)] = []
        switch step.request {
        case let .transferSubject(persona, sub, target):
            guard let clientID = step.client ?? memory.client else { throw .harness("no client yet: sign in first") }
            guard let sub = sub ?? persona.flatMap({ provider.subject(personaID: $0, clientID: clientID) }) else {
                throw .harness("give persona or sub")
            }
            fields = [("sub", sub), ("target", target)]
        case let .resolve(transferSub):
            guard let transferSub = transferSub ?? memory.transferSub else {
                throw .harness("no transfer_sub yet: a sending-team userMigration step (with target) comes first")
            }
            fields = [("transfer_sub", transferSub)]
        }
        let request = try form(call, fields)
        let answer = try apple { () throws(AppleError) in
            try provider.userMigrationInfo(request, bearer: token["access_token"]?.stringValue, origin: Self.origin)
        }
        if let transferSub = answer["transfer_sub"]?.stringValue { memory.transferSub = transferSub }
        return answer
    }

    private func admin(_ body: () throws(PersonaError) -> Void) throws(StepFailure) {
        do { try body() } catch { throw .harness(error.description) }
    }

    // MARK: Expectations

    private func check(_ result: Result<Observation, AppleError>, _ expect: TimelineExpectation, notes: inout [String]) -> [String] {
        var failures: [String] = []
        let observation: Observation
        switch (result, expect.error) {
        case let (.failure(error), expected?):
            notes.append("\(error.code.rawValue): \(error.reason)")
            if error.code != expected { failures.append("expected \(expected.rawValue), got \(error.code.rawValue) (\(error.reason))") }
            if let description = expect.errorDescription, error.description != description {
                failures.append("expected error_description \"\(description)\", got \(error.description.map { "\"\($0)\"" } ?? "none")")
            }
            return failures
        case let (.failure(error), nil):
            return ["failed: \(error.code.rawValue) (\(error.reason))"]
        case let (.success, expected?):
            return ["expected \(expected.rawValue), but the step succeeded"]
        case let (.success(value), nil):
            observation = value
        }
        if let reply = observation.smtpReply {
            notes.append("relay answered \(reply)")
            if !reply.hasPrefix(expect.smtpReply ?? "250") { failures.append("expected the relay to answer \(expect.smtpReply ?? "250"), it answered \(reply)") }
        } else if let expected = expect.smtpReply {
            failures.append("expected an SMTP reply \(expected), but the step sends no mail")
        }
        if let user = expect.user, observation.user != user {
            failures.append("expected user \(user ? "present" : "absent"), it was \(observation.user == true ? "present" : "absent")")
        }
        guard !expect.claims.isEmpty || expect.signedBy != nil || expect.verifies != nil else { return failures }
        if let response = observation.response {
            return failures + check(expect.claims, in: response, notes: &notes)
                + (expect.signedBy != nil || expect.verifies != nil ? ["this step answers JSON, not a signed token"] : [])
        }
        guard let token = observation.idToken, let jws = try? CompactJWS(compact: token) else {
            return failures + ["expected an identity token to check, there was none"]
        }
        failures += check(expect.claims, in: jws.payload, notes: &notes)
        let kid = jws.header["kid"]?.stringValue
        if let signedBy = expect.signedBy, kid != signedBy { failures.append("signed by \(kid ?? "no kid"), expected \(signedBy)") }
        if let verifies = expect.verifies {
            let valid = kid.flatMap { provider.keySet.key(withID: $0) }?.isValidSignature(jws.signature, for: jws.signingInput) ?? false
            if valid != verifies { failures.append(verifies ? "the token does not verify against /auth/keys" : "the token verifies, but should not") }
        }
        return failures
    }

    /// Compares `expected` claims (or response fields) with `payload`.
    private func check(_ expected: [(String, ClaimExpectation)], in payload: JSONValue, notes: inout [String]) -> [String] {
        var failures: [String] = []
        for (name, expected) in expected {
            let actual = payload[name]
            switch expected {
            case .absent where actual != nil: failures.append("claim \(name) should be absent, it is \(actual!.serialized)")
            case .present where actual == nil: failures.append("claim \(name) should be present")
            case let .equals(value) where actual != value && !(value.doubleValue != nil && value.doubleValue == actual?.doubleValue):
                failures.append("claim \(name) should be \(value.serialized), it is \(actual?.serialized ?? "absent")")
            default: notes.append("\(name) = \(actual?.serialized ?? "absent")")
            }
        }
        return failures
    }
}

extension TimelineStepRunner {
    /// Notes each notification the step queued (or could not route) and compares the queued types with `expected`.
    func checkNotifications(since firstEvent: Int, _ expected: [NotificationType]?, notes: inout [String]) -> [String] {
        var queued: [NotificationType] = []
        for recorded in provider.world.events.events(after: firstEvent - 1) {
            switch recorded.event {
            case let .notificationQueued(_, type, _, group):
                queued.append(type)
                notes.append("notification \(type.rawValue) queued for \(group)")
            case let .notificationUnrouted(type, _, group):
                notes.append("notification \(type.rawValue) not sent: \(group) has no notification URL")
            default: continue
            }
        }
        guard let expected, expected != queued else { return [] }
        return ["expected notifications [\(expected.map(\.rawValue).joined(separator: ", "))], queued [\(queued.map(\.rawValue).joined(separator: ", "))]"]
    }
}

/// Why a step failed: Apple's answer to the request it made (which its expectations judge), or a step that
/// could not run as written (no code yet, an unknown persona, a key the scenario lacks), which fails it
/// whatever it expects.
enum StepFailure: Error, CustomStringConvertible {
    case apple(AppleError)
    case harness(String)

    var description: String {
        switch self {
        case let .apple(error): return "\(error.code.rawValue) (\(error.reason))"
        case let .harness(reason): return "the step could not run: \(reason)"
        }
    }
}

/// Runs one of Apple's endpoints for a step: its error is the step's answer.
private func apple<T>(_ call: () throws(AppleError) -> T) throws(StepFailure) -> T {
    do { return try call() } catch { throw .apple(error) }
}
