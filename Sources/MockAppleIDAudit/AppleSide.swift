import Foundation
import Synchronization
import MockAppleID

/// Apple's side of the audit: the provider behind the mock server the relying party is configured
/// with. It answers the relying party's authorize requests as a person would on the consent page,
/// queues the misbehaviours of a case, and tells what the relying party asked of the token endpoint.
public struct AppleSide: Sendable {
    /// The provider behind the mock server: its world is what the audit changes between cases.
    public let provider: AppleIDProvider
    /// The mock server's base URL as the relying party reaches it (`http://127.0.0.1:8080`).
    public let baseURL: URL

    /// What this audit changed in the world, to be put back.
    private let changes = Changes()

    /// Apple's side played by `provider`, which the relying party reaches at `baseURL`.
    public init(provider: AppleIDProvider, baseURL: URL) {
        self.provider = provider
        self.baseURL = baseURL
    }

    /// The signing keys an audit published, the key that signed before the first, the notification URLs it removed,
    /// and whether it made a persona anew.
    private final class Changes: Sendable {
        private struct Recorded {
            var added: [String] = []
            var activeBefore: String?
            var unrouted: [(app: String, url: String)] = []
            var madeFreshPersona = false
            var relayDomain: (before: RelayOptions.AddressDomain, moved: RelayOptions.AddressDomain)?
        }

        private let recorded = Mutex(Recorded())

        func published(_ kid: String, replacing active: String) {
            recorded.withLock { recorded in
                if recorded.activeBefore == nil { recorded.activeBefore = active }
                recorded.added.append(kid)
            }
        }

        func unrouted(app: String, url: String) { recorded.withLock { $0.unrouted.append((app, url)) } }

        func madeFreshPersona() { recorded.withLock { $0.madeFreshPersona = true } }

        func movedRelayDomain(from before: RelayOptions.AddressDomain, to moved: RelayOptions.AddressDomain) {
            recorded.withLock { if $0.relayDomain == nil { $0.relayDomain = (before, moved) } }
        }

        /// Where new relay addresses were given out before the audit moved them, and where it moved them; forgotten here.
        func takenRelayDomain() -> (before: RelayOptions.AddressDomain, moved: RelayOptions.AddressDomain)? {
            recorded.withLock { recorded in
                defer { recorded.relayDomain = nil }
                return recorded.relayDomain
            }
        }

        /// What was recorded, forgotten here (so that it is put back once).
        func taken() -> (added: [String], activeBefore: String?, unrouted: [(app: String, url: String)], madeFreshPersona: Bool) {
            recorded.withLock { recorded in
                defer { recorded = Recorded() }
                return (recorded.added, recorded.activeBefore, recorded.unrouted, recorded.madeFreshPersona)
            }
        }
    }

    /// What the person on the consent page does.
    enum Person: Sendable {
        case approve(persona: String, emailChoice: EmailChoice?)
        case cancel
    }

    /// Apple's answer to the relying party's authorize request.
    func answer(_ parameters: FormParameters, as person: Person) throws(AppleError) -> AuthorizationDelivery {
        switch person {
        case .cancel: return try provider.completeAuthorization(parameters, decision: .cancel)
        case let .approve(persona, choice):
            return try provider.completeAuthorization(parameters, decision: .approve(personaID: persona, emailChoice: choice, name: nil))
        }
    }

    /// The persona an audit signs in as someone the relying party has never seen.
    static let freshPersonaID = "mock-appleid-audit"

    /// ``freshPersonaID`` made anew: a new Apple Account (a new `sub`) and, with `withEmail`, an email no one has had,
    /// so that a case about the first sign-in's `user` JSON meets the relying party's account creation. Its account
    /// is deleted again by ``restore()``.
    func freshPersona(withEmail: Bool) throws(AuditFailure) -> Persona {
        let suffix = Hex.encode((0..<6).map { _ in UInt8.random(in: .min ... .max) })
        return try freshPersona(email: withEmail ? "\(Self.freshEmailPrefix)\(suffix)@example.net" : nil)
    }

    /// ``freshPersonaID`` made anew with `email` (nil: none).
    func freshPersona(email: String?) throws(AuditFailure) -> Persona {
        let persona = Persona(id: Self.freshPersonaID, firstName: Self.freshPersonaName.first, lastName: Self.freshPersonaName.last, email: email)
        if let existing = provider.persona(persona.id) {
            // A scenario's own persona of that id is not the audit's to delete.
            guard (existing.firstName, existing.lastName) == Self.freshPersonaName,
                  existing.email.map({ $0.hasPrefix(Self.freshEmailPrefix) || !$0.unicodeScalars.allSatisfy(\.isASCII) }) ?? true else {
                throw AuditFailure("the scenario has a persona \(persona.id) of its own, which the audit does not change")
            }
            if !provider.isDeleted(personaID: persona.id) {
                do { try provider.deleteAccount(personaID: persona.id) } catch { throw AuditFailure("could not end \(persona.id)'s account: \(error)") }
            }
        }
        do { try provider.createPersona(persona) } catch { throw AuditFailure("could not make \(persona.id) anew: \(error)") }
        changes.madeFreshPersona()
        return persona
    }

    private static let freshPersonaName = (first: "Audit", last: "Person")
    private static let freshEmailPrefix = "audit.person."

    /// Makes the person's next sign-in to `clientID` a first one (Apple then sends the `user` JSON).
    func forget(persona: String, clientID: String) { try? provider.revokeConsent(personaID: persona, clientID: clientID) }

    /// Gives new relay addresses out at `domain` until ``putBackRelayDomain()`` (called after the case) or ``restore()``.
    func giveOutRelayAddresses(at domain: RelayOptions.AddressDomain) {
        let before = provider.newRelayAddressDomain
        guard before != domain else { return }
        changes.movedRelayDomain(from: before, to: domain)
        provider.setRelayDomain(domain)
    }

    /// Gives new relay addresses out where they were before ``giveOutRelayAddresses(at:)``, unless someone moved them since.
    func putBackRelayDomain() {
        guard let (before, moved) = changes.takenRelayDomain(), provider.newRelayAddressDomain == moved else { return }
        provider.setRelayDomain(before)
    }

    /// Removes the notification URL of `app`'s group, so that the consents the audit revokes send nothing, until
    /// ``restore()``; returns the URL it had, if any.
    func stopNotifications(app: String) -> String? {
        guard let url = provider.directory.group(named: app)?.notificationURL else { return nil }
        guard (try? provider.setNotificationURL(nil, app: app)) != nil else { return nil }
        changes.unrouted(app: app, url: url)
        return url
    }

    /// Puts back what this audit changed for its cases, besides consents and grants, as far as no one changed it since:
    /// the key that signed before its first rotation signs again (when one of its keys still signs), the keys it
    /// published are retired, the account of the persona it made anew is deleted (the persona stays, as a deleted
    /// account), and an app group whose notification URL it removed (and that has none now) has it again. So one server can be audited again and again (at most ``KeyRing/capacity`` keys are published), and an
    /// audit of another replica sharing the world keeps its own changes. Returns what could not be put back, and why.
    func restore() -> [String] {
        putBackRelayDomain()
        let (added, activeBefore, unrouted, madeFreshPersona) = changes.taken()
        var problems: [String] = []
        // Before the notification URL is back: the account's end is no notification of Apple's.
        if madeFreshPersona, provider.persona(Self.freshPersonaID) != nil, !provider.isDeleted(personaID: Self.freshPersonaID) {
            do { try provider.deleteAccount(personaID: Self.freshPersonaID) } catch { problems.append("the persona \(Self.freshPersonaID): \(error)") }
        }
        if let activeBefore, added.contains(provider.keyRing().activeKID) {
            do { try provider.changeKeys(.activate(kid: activeBefore)) } catch { problems.append("the signing key \(activeBefore): \(error)") }
        }
        for kid in added where provider.keyRing().key(withID: kid) != nil && provider.keyRing().activeKID != kid {
            do { try provider.changeKeys(.retire(kid: kid)) } catch { problems.append("the signing key \(kid) it published: \(error)") }
        }
        for (app, url) in unrouted where provider.directory.group(named: app)?.notificationURL == nil {
            do { try provider.setNotificationURL(url, app: app) } catch { problems.append("the notification URL \(url) of \(app): \(error)") }
        }
        return problems
    }

    /// Queues `kind` for the next matching request (every one while `count` is nil).
    func queue(_ kind: Fault.Kind, clientID: String?, count: Int? = 1) {
        _ = try? provider.queueFault(Fault(kind, clientID: clientID, count: count))
    }

    /// Drops every queued fault (a case's leftovers, when the relying party did not make the request).
    func clearFaults() { provider.clearFaults() }

    /// Signs with a new key from now on, published in `/auth/keys`, until ``restore()``; returns its `kid`.
    func rotateSigningKey() throws -> String {
        let ring = provider.keyRing()
        let generated = try KeyGenerator.generate(ring.active.algorithm == .rs256 ? .rsa : .ec, kid: nil)
        let key = try SigningKey(kid: generated.kid, algorithm: ring.active.algorithm, pem: generated.pem)
        try provider.changeKeys(.add(key))
        changes.published(key.kid, replacing: ring.activeKID)
        try provider.changeKeys(.activate(kid: key.kid))
        return key.kid
    }

    /// The journal's last sequence number now (a mark to count requests after).
    func journalMark() -> Int { provider.journal.entries().last?.sequence ?? 0 }

    /// The code exchanges at `/auth/token` for `clientID` since `mark`, with their statuses.
    func codeExchanges(clientID: String, after mark: Int) -> [Int] {
        provider.journal.entries(after: mark).filter { $0.endpoint == AppleEndpoint.token.rawValue && $0.clientID == clientID }.map(\.status)
    }

    /// The persona's `sub` for `clientID`'s team.
    func subject(persona: String, clientID: String) -> String? { provider.subject(personaID: persona, clientID: clientID) }

    /// Another client of `clientID`'s team (not `excluded`) for a wrong `aud`: a second Services ID first (a relying
    /// party may trust its own app's bundle ID on purpose), else a bundle ID.
    func otherClient(ofTeamOf clientID: String, excluding excluded: String? = nil) -> String {
        let directory = provider.directory
        guard let client = directory.client(clientID) else { return clientID + ".other" }
        let others = directory.clients.filter { $0.teamID == client.teamID && $0.id != clientID && $0.id != excluded }
        return (others.first { $0.kind == .web } ?? others.first)?.id ?? clientID + ".other"
    }
}
