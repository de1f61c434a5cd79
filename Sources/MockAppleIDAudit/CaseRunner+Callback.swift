import Foundation
import MockAppleID

extension CaseRunner {
    /// Three minutes on Apple's page: a cookie with no SameSite no longer rides the form_post.
    static let slowPersonSeconds: TimeInterval = 180
    /// The email a forged `user` JSON names.
    static let forgedEmail = "audit.forged.address@example.net"
    /// The email of the other person a front-channel id_token names in `id_token.sub_mismatch`.
    static let otherPersonsEmail = "audit.other.person@example.net"

    /// Apple's form_post changed one way: its state, its `user` JSON, delivered twice or to another
    /// browser session, or for an unusual person (no email, a relay address).
    func playCallback(_ auditCase: AuditCase) async throws(AuditFailure) -> Outcome {
        switch auditCase {
        case .callbackStateOtherSession: return try await playOtherSession()
        case .callbackReplay: return try await playReplay()
        case .callbackNoEmail: return try await playNoEmail()
        case .callbackUserEmailMismatch, .callbackUserEmailOnly: return try await playUserJSONEmail(tokenHasEmail: auditCase == .callbackUserEmailMismatch)
        case .callbackRelayEmail: return try await playRelayEmail()
        case .callbackRelayNewDomain: return try await playRelayNewDomain()
        case .callbackResponseModeMismatch: return try await playResponseModeMismatch()
        case .callbackEmailLookalike: return try await playEmailLookalike()
        default: break
        }
        var attempt = try await firstSignIn()
        if auditCase == .callbackUserOnReturn {
            // A consent given now makes the sign-in below a returning one.
            _ = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        }
        let person: AppleSide.Person = auditCase == .callbackCancel ? .cancel : .approve(persona: persona, emailChoice: .share)
        let delivery = try session.answer(attempt, as: person)
        var fields = delivery.fields.pairs
        switch auditCase {
        case .callbackStateMissing:
            if attempt.request.first("state") == nil { return .skipped("the relying party sends no state") }
            fields = fields.replacing("state", with: nil)
        case .callbackStateWrong:
            if attempt.request.first("state") == nil { return .skipped("the relying party sends no state") }
            fields = fields.replacing("state", with: "audit-not-your-state-" + AppleIdentifiers.jwtID())
        case .callbackUserOnReturn:
            let named = apple.provider.persona(persona)
            var user: [(String, JSONValue)] = [("name", .object([("firstName", .string(named?.firstName ?? "Audit")),
                                                                 ("lastName", .string(named?.lastName ?? "Person"))]))]
            if let email = sharedEmail() { user.append(("email", .string(email))) }
            fields = fields.replacing("user", with: JSONValue.object(user).serialized)
        default: break
        }
        let dwell = auditCase == .cookiesSlowPerson ? Self.slowPersonSeconds : nil
        let unmarked = attempt.jar.cookies.filter { $0.sameSite == .unspecified }.map(\.name)
        let observation = await session.observe(fields, of: delivery, attempt: &attempt,
                                                needles: needles(emails: [sharedEmail()], clientID: attempt.clientID), dwell: dwell)
        var played = Played(observation: observation)
        if auditCase == .cookiesSlowPerson, session.chromium != nil, delivery.mode != .webMessage, !unmarked.isEmpty {
            played.evidence.append("Chromium's clock cannot be moved: the cookies with no SameSite (\(unmarked.joined(separator: ", "))), set over two "
                                   + "minutes before the form_post by the audit's clock, went in as SameSite=Lax, as Chromium treats them by then")
        }
        if auditCase == .cookiesSlowPerson, let withheld = observation.callback.hops.first?.withheld, !withheld.isEmpty {
            played.evidence.append("withheld from the form_post after \(Int(Self.slowPersonSeconds)) s: \(withheld.map(\.label).joined(separator: ", "))")
        }
        return .played(played)
    }

    /// Another browser's answer (its state, code and token) delivered to this browser.
    private func playOtherSession() async throws(AuditFailure) -> Outcome {
        var victim = try await session.begin()
        let other = try await firstSignIn()
        if other.request.first("state") == nil { return .skipped("the relying party sends no state") }
        let delivery = try session.answer(other, as: .approve(persona: persona, emailChoice: .share))
        let observation = await session.observe(delivery.fields.pairs, of: delivery, attempt: &victim,
                                                needles: needles(emails: [sharedEmail()], clientID: victim.clientID))
        return .played(Played(observation: observation))
    }

    /// The honest answer delivered, then delivered again with the cookies the browser had before the first.
    private func playReplay() async throws(AuditFailure) -> Outcome {
        var attempt = try await firstSignIn()
        if attempt.request.first("response_mode") == ResponseMode.webMessage.rawValue {
            return .skipped("Apple's answer reaches the page by postMessage from its popup, once: a second delivery has no page waiting for it")
        }
        let before = attempt.jar
        let delivery = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        let needles = needles(emails: [sharedEmail()], clientID: attempt.clientID)
        let first = await session.observe(delivery.fields.pairs, of: delivery, attempt: &attempt, needles: needles)
        guard first.signedIn.signedIn else { return .skipped("the first delivery did not sign the person in (\(first.callback.summary))") }
        var replay = AuditSession.Attempt(jar: before, request: attempt.request, start: attempt.start)
        // A session whose id outlives the sign-in is signed in whatever the replay does (and open to fixation).
        if await session.checkSignedIn(&replay.jar, needles: needles).signedIn {
            return .judged(.warn, "keeps a session's id across sign-in (session fixation: rotate it when signing in), so a replay cannot be told apart")
        }
        let second = await session.observe(delivery.fields.pairs, of: delivery, attempt: &replay, needles: needles)
        var played = Played(observation: second, evidence: ["the first delivery signed the person in"])
        if second.exchanges.contains(where: { $0 != 200 }) {
            played.cautionIfRefused = "did not sign in, but redeemed the code a second time and was stopped only by Apple's invalid_grant "
                + "(keep state on the server, where the callback's first use can end it: a state in a cookie comes back with a replayed cookie)"
        }
        return .played(played)
    }

    /// The SKIP of a case whose person has no email, when the signed-in page cannot tell that person signed in: it
    /// shows people by email and answers 2xx without a session.
    private var personWithoutEmailUntold: Outcome? {
        guard learned.shows == .email, learned.anonymousPageAnswers2xx else { return nil }
        return .skipped("the signed-in page shows people by email and answers 2xx without a session, so a person without an email cannot be told signed in")
    }

    /// A person who shares no email (a persona of the scenario without one), signing in for the first time.
    private func playNoEmail() async throws(AuditFailure) -> Outcome {
        if let untold = personWithoutEmailUntold { return untold }
        guard let person = apple.provider.personas().first(where: {
            $0.email == nil && $0.id != AppleSide.freshPersonaID && !apple.provider.isDeleted(personaID: $0.id)
        }) else {
            return .skipped("the scenario has no persona without an email")
        }
        var attempt = try await session.begin()
        apple.forget(persona: person.id, clientID: attempt.clientID)
        let delivery = try session.answer(attempt, as: .approve(persona: person.id, emailChoice: .share))
        let observation = await session.observe(delivery.fields.pairs, of: delivery, attempt: &attempt,
                                                needles: needles(persona: person.id, emails: [], clientID: attempt.clientID))
        return .played(Played(observation: observation, evidence: ["persona \(person.id), who has no email, signing in for the first time"]))
    }

    /// A person the relying party has never seen signs in, and the form_post's `user` JSON names another email than
    /// the token's (`tokenHasEmail`), or one though the token has none: a relying party that trusts the `user` JSON
    /// only when it creates an account meets it here.
    private func playUserJSONEmail(tokenHasEmail: Bool) async throws(AuditFailure) -> Outcome {
        if !tokenHasEmail, let untold = personWithoutEmailUntold { return untold }
        var attempt = try await session.begin()
        if tokenHasEmail, !attempt.asksForEmail {
            return .skipped("the relying party asks for no email scope, so Apple sends no email")
        }
        let person: Persona
        do { person = try apple.freshPersona(withEmail: tokenHasEmail) } catch { return .skipped("no person the relying party has never seen: \(error)") }
        let delivery = try session.answer(attempt, as: .approve(persona: person.id, emailChoice: .share))
        let name = JSONValue.object([("firstName", .string(person.firstName)), ("lastName", .string(person.lastName))])
        let fields = delivery.fields.pairs.replacing("user", with: JSONValue.object([("name", name), ("email", .string(Self.forgedEmail))]).serialized)
        let observation = await session.observe(fields, of: delivery, attempt: &attempt,
                                                needles: needles(persona: person.id, emails: [person.email], clientID: attempt.clientID))
        let subject = apple.subject(persona: person.id, clientID: attempt.clientID) ?? "?"
        var played = Played(observation: observation, forbiddenEmail: Self.forgedEmail, expectedEmail: person.email,
                            evidence: ["a person the relying party has never seen (persona \(person.id), sub \(subject), "
                                       + (person.email.map { "email \($0)" } ?? "no email") + "); the user JSON names \(Self.forgedEmail)"])
        played.pageShowsEmails = !tokenHasEmail && learned.showsEmail
        return .played(played)
    }

    /// The person hides their email: the token carries a private relay address.
    private func playRelayEmail() async throws(AuditFailure) -> Outcome {
        var attempt = try await firstSignIn()
        let delivery = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .hide))
        let relay = try? apple.provider.relayAddress(personaID: persona, app: attempt.clientID)
        let observation = await session.observe(delivery.fields.pairs, of: delivery, attempt: &attempt,
                                                needles: needles(emails: [relay, sharedEmail()], clientID: attempt.clientID))
        // The next sign-in shares the email again.
        apple.forget(persona: persona, clientID: attempt.clientID)
        return .played(Played(observation: observation, evidence: relay.map { ["relay address \($0)"] } ?? []))
    }

    /// A person the relying party has never seen hides their email, and the relay address is at `private.icloud.com`.
    private func playRelayNewDomain() async throws(AuditFailure) -> Outcome {
        var attempt = try await session.begin()
        guard attempt.asksForEmail else { return .skipped("the relying party asks for no email scope, so Apple sends no email") }
        let person: Persona
        do { person = try apple.freshPersona(withEmail: true) } catch { return .skipped("no person the relying party has never seen: \(error)") }
        apple.giveOutRelayAddresses(at: .privateICloud)
        defer { apple.putBackRelayDomain() }
        let delivery = try session.answer(attempt, as: .approve(persona: person.id, emailChoice: .hide))
        let relay = try? apple.provider.relayAddress(personaID: person.id, app: attempt.clientID)
        let observation = await session.observe(delivery.fields.pairs, of: delivery, attempt: &attempt,
                                                needles: needles(persona: person.id, emails: [relay], clientID: attempt.clientID))
        return .played(Played(observation: observation, evidence: ["a person the relying party has never seen (persona \(person.id)), relay address "
                                                                    + (relay ?? "?")]))
    }

    /// The honest answer to a relying party that asked for form_post, delivered as a GET with a query instead.
    private func playResponseModeMismatch() async throws(AuditFailure) -> Outcome {
        var attempt = try await firstSignIn()
        let delivery = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        guard delivery.mode == .formPost else { return .skipped("the relying party asks for response_mode=\(delivery.mode.rawValue), not form_post") }
        let byQuery = AuthorizationDelivery(redirectURI: delivery.redirectURI, mode: .query, fields: delivery.fields)
        let observation = await session.observe(delivery.fields.pairs, of: byQuery, attempt: &attempt,
                                                needles: needles(emails: [sharedEmail()], clientID: attempt.clientID))
        return .played(Played(observation: observation))
    }

    /// The audit's person signs in; then a person the relying party has never seen, whose email differs from theirs only by
    /// a look-alike letter. A relying party that matches accounts by a folded email lets the second into the first's account.
    private func playEmailLookalike() async throws(AuditFailure) -> Outcome {
        guard learned.shows != .nothing else {
            return .skipped("the signed-in page shows neither sub nor email, so whose account a person entered cannot be told")
        }
        // A page that shows emails may show them lower-cased, and the Kelvin sign lower-cases to k.
        guard let known = sharedEmail(), let lookalike = Self.lookalike(of: known, lowerCasedShows: learned.shows == .email) else {
            return .skipped("the audit's persona has no email with a letter that has a look-alike")
        }
        var first = try await firstSignIn()
        guard try await signIn(&first) else { return .skipped("the audit's person did not sign in") }
        var attempt = try await session.begin()
        guard attempt.asksForEmail else { return .skipped("the relying party asks for no email scope, so Apple sends no email") }
        let person: Persona
        do { person = try apple.freshPersona(email: lookalike) } catch { return .skipped("no person the relying party has never seen: \(error)") }
        let delivery = try session.answer(attempt, as: .approve(persona: person.id, emailChoice: .share))
        // The known person's account shows their sub, or their email (which the look-alike does not contain).
        let knownMark = learned.shows == .subject ? apple.subject(persona: persona, clientID: attempt.clientID) : known
        let observation = await session.observe(delivery.fields.pairs, of: delivery, attempt: &attempt,
                                                needles: needles(persona: person.id, emails: [lookalike], clientID: attempt.clientID))
        var played = Played(observation: observation, forbiddenEmail: knownMark, expectedEmail: lookalike,
                            evidence: ["\(known) signed in first; then a person the relying party has never seen (persona \(person.id)) with \(lookalike)"])
        played.forbiddenSeen = "signed the new person in to the account of the person whose email theirs only looks like"
        played.pageShowsEmails = true
        return .played(played)
    }

    /// `email` with one letter of its local part replaced by a look-alike: first one whose Unicode case mapping gives the
    /// ASCII letter back (the Kelvin sign lower-cases to k, ſ folds to s, ı upper-cases to I), which a relying party that
    /// compares emails case-insensitively takes for the same; else a Cyrillic twin. Nil when no letter has one.
    /// With `lowerCasedShows`, the Kelvin sign is not used (a page that lower-cases the email it shows would show the known one).
    static func lookalike(of email: String, lowerCasedShows: Bool = false) -> String? {
        // In order of preference: the Kelvin sign (lower() folds it), ſ (casefold and upper), ı (upper), then Cyrillic twins.
        let twins: [(Character, Character)] = (lowerCasedShows ? [] : [("k", "\u{212A}")])
            + [("s", "\u{017F}"), ("i", "\u{0131}"), ("a", "\u{0430}"), ("e", "\u{0435}"), ("o", "\u{043E}"), ("p", "\u{0440}"), ("c", "\u{0441}"),
               ("x", "\u{0445}")]
        guard let at = email.lastIndex(of: "@") else { return nil }
        for (letter, twin) in twins {
            if let index = email[..<at].firstIndex(of: letter) {
                var changed = email
                changed.replaceSubrange(index...index, with: String(twin))
                return changed
            }
        }
        return nil
    }
}
