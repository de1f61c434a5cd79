import Foundation
import MockAppleID

extension CaseRunner {
    /// How long after its last fetch of `/auth/keys` a relying party is given before a rotation it did not take at
    /// once: some libraries fetch the keys at most once in a while (PyJWT's `PyJWKClient` and jose's remote key sets
    /// every 30 seconds), and Apple never rotates seconds after a fetch.
    static let refetchPause: TimeInterval = 31

    /// The signing keys rotated: while the relying party holds a cached copy (`keys.rotation`), then while
    /// `/auth/keys` is down (`keys.unreachable`). A rotation the relying party does not take at once, seconds after
    /// its last fetch of the keys, is played again once that fetch is ``refetchPause`` old: a library that fetches
    /// at most once in a while is not faulted for it, and one that fetches at once costs the audit no wait.
    func playKeys(_ auditCase: AuditCase) async throws(AuditFailure) -> Outcome {
        let mark = apple.journalMark()
        let age = lastKeysFetchAge()
        let first = try await rotateAndSignIn(unreachable: auditCase == .keysUnreachable)
        // Played again only when the relying party did not fetch the keys for the new kid: it may be waiting out a cooldown.
        guard auditCase == .keysRotation, !first.played.observation.signedIn.signedIn, !fetchedKeys(after: mark),
              let age, age < Self.refetchPause else {
            return .played(first.played)
        }
        let wait = min(Self.refetchPause - age, Self.refetchPause)
        try? await Task.sleep(for: .seconds(wait))
        var again = try await rotateAndSignIn(unreachable: false)
        again.played.evidence.insert("it did not fetch /auth/keys for the new key \(first.kid), \(Int(age.rounded())) s after its last fetch "
                                     + "(\(first.played.observation.callback.summary)); played again \(Int(wait.rounded())) s later", at: 0)
        return .played(again.played)
    }

    /// A first sign-in signed with a new key (with `/auth/keys` down when `unreachable`), and the key's `kid`.
    private func rotateAndSignIn(unreachable: Bool) async throws(AuditFailure) -> (played: Played, kid: String) {
        var attempt = try await firstSignIn()
        let kid: String
        do { kid = try apple.rotateSigningKey() } catch { throw AuditFailure("could not rotate the signing key: \(error)") }
        if unreachable { apple.queue(.keysUnavailable(status: 503), clientID: nil, count: nil) }
        let delivery = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        let observation = await session.observe(delivery.fields.pairs, of: delivery, attempt: &attempt,
                                                needles: needles(emails: [sharedEmail()], clientID: attempt.clientID))
        // A relying party that fetches the token itself may rely on TLS instead of the signature: a should then.
        return (Played(observation: observation, missIsWarning: !attempt.sendsFrontChannelToken, evidence: ["Apple signs with the new key \(kid)"]),
                kid)
    }

    /// Whether the relying party fetched `/auth/keys` since the journal's `mark`.
    private func fetchedKeys(after mark: Int) -> Bool {
        apple.provider.journal.entries(after: mark).contains { $0.endpoint == AppleEndpoint.keys.rawValue }
    }

    /// How long ago (on the server's clock) the relying party last fetched `/auth/keys`; nil when it never did.
    private func lastKeysFetchAge() -> TimeInterval? {
        guard let last = apple.provider.journal.entries().last(where: { $0.endpoint == AppleEndpoint.keys.rawValue }) else { return nil }
        return apple.provider.clock.now.timeIntervalSince(last.time)
    }
}
