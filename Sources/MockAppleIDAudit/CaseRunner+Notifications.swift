import Foundation
import MockAppleID

extension CaseRunner {
    /// A server-to-server notification about the signed-in person, genuine or broken one way, posted to the
    /// relying party's endpoint; the signed-in page then tells whether it acted on it.
    func playNotification(_ auditCase: AuditCase) async throws(AuditFailure) -> Outcome {
        guard let url = session.configuration.notificationsURL else {
            return .skipped("no --notifications URL given: the notification endpoint is not audited")
        }
        var attempt = try await firstSignIn()
        guard try await signIn(&attempt) else { return .skipped("the sign-in before the notification did not succeed") }
        let needles = needles(emails: [sharedEmail()], clientID: attempt.clientID)
        let type: NotificationType = switch auditCase {
        case .notificationsAccountDelete: .accountDeleted
        case .notificationsEmailDisabled: .emailDisabled
        case .notificationsEmailEnabled: .emailEnabled
        default: .consentRevoked
        }
        let claims: JSONValue
        do { claims = try apple.provider.notificationClaims(type, personaID: persona, app: attempt.clientID) } catch {
            throw AuditFailure("Apple's side cannot make a notification for \(attempt.clientID): \(error)")
        }
        let jwt: String
        do { jwt = try notification(auditCase, claims, clientID: attempt.clientID) } catch {
            throw AuditFailure("could not sign the notification: \(error)")
        }
        if auditCase == .notificationsRetried { return await playRetried(jwt, to: url, jar: &attempt.jar, needles: needles) }
        guard auditCase == .notificationsReplay else {
            return .played(Played(observation: await session.postNotification(jwt, to: url, jar: &attempt.jar, needles: needles)))
        }
        // A replay: the genuine notification first, then, once the person has signed in again, the same one.
        let first = await session.postNotification(jwt, to: url, jar: &attempt.jar, needles: needles)
        if first.signedIn.signedIn {
            return .skipped("the relying party kept the session after a genuine consent-revoked, so a replay shows nothing")
        }
        var again = try await firstSignIn()
        guard try await signIn(&again) else { return .skipped("the sign-in after the notification did not succeed") }
        return .played(Played(observation: await session.postNotification(jwt, to: url, jar: &again.jar, needles: needles),
                              evidence: ["the first posting ended the session"]))
    }

    /// A genuine notification posted twice at once, as Apple retries one whose answer timed out.
    private func playRetried(_ jwt: String, to url: URL, jar: inout BrowserCookieJar, needles: [String]) async -> Outcome {
        let first = await session.postNotification(jwt, to: url, jar: &jar, needles: needles)
        let ended = !first.signedIn.signedIn
        let answered = first.callback.summary
        guard ended else { return .skipped("the relying party kept the session after a genuine consent-revoked, so a repeat shows nothing") }
        let second = await session.postNotification(jwt, to: url, jar: &jar, needles: needles)
        return .played(Played(observation: second, evidence: ["the first posting ended the session (\(answered))"]))
    }

    /// An honest sign-in in `attempt`'s browser; whether it ended signed in.
    func signIn(_ attempt: inout AuditSession.Attempt) async throws(AuditFailure) -> Bool {
        let delivery = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        let observation = await session.observe(delivery.fields.pairs, of: delivery, attempt: &attempt,
                                                needles: needles(emails: [sharedEmail()], clientID: attempt.clientID))
        return observation.signedIn.signedIn
    }

    private func notification(_ auditCase: AuditCase, _ claims: JSONValue, clientID: String) throws -> String {
        let forgery = TokenForgery(appleKey: apple.provider.keyRing().active)
        switch auditCase {
        case .notificationsForged: return try forgery.foreign(claims)
        case .notificationsAudience: return try forgery.signed(claims.setting("aud", .string(apple.otherAppGroup(than: clientID))))
        case .notificationsIssuer: return try forgery.signed(claims.setting("iss", .string("https://appleid.apple.com.audit.invalid")))
        case .notificationsExpired: return try forgery.signed(claims.expiredAnHourAgo)
        case .notificationsUnknownType: return try forgery.signed(claims.withEventType(Self.unknownNotificationType))
        default: return try forgery.signed(claims)
        }
    }
}

extension CaseRunner {
    /// The type of `notifications.unknown_type`'s notification, one Apple has never sent.
    static let unknownNotificationType = "mock-appleid-audit-new-type"
}

extension JSONValue {
    /// A notification's claims with its event's `type` replaced, its `events` kept as a JSON string or an object as it was.
    func withEventType(_ type: String) -> JSONValue {
        guard let events = self["events"] else { return self }
        if let text = events.stringValue, let event = JSONValue.parse(Data(text.utf8)) {
            return setting("events", .string(event.setting("type", .string(type)).serialized))
        }
        return setting("events", events.setting("type", .string(type)))
    }
}
