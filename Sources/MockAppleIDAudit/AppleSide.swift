import Foundation
import MockAppleID

/// Apple's side of the audit: the provider behind the mock server the relying party is configured
/// with. It answers the relying party's authorize requests as a person would on the consent page,
/// queues the misbehaviours of a case, and tells what the relying party asked of the token endpoint.
public struct AppleSide: Sendable {
    /// The provider behind the mock server: its world is what the audit changes between cases.
    public let provider: AppleIDProvider
    /// The mock server's base URL as the relying party reaches it (`http://127.0.0.1:8080`).
    public let baseURL: URL

    /// Apple's side played by `provider`, which the relying party reaches at `baseURL`.
    public init(provider: AppleIDProvider, baseURL: URL) {
        self.provider = provider
        self.baseURL = baseURL
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

    /// Makes the person's next sign-in to `clientID` a first one (Apple then sends the `user` JSON).
    func forget(persona: String, clientID: String) { try? provider.revokeConsent(personaID: persona, clientID: clientID) }

    /// Removes the notification URL of `app`'s group, so that the consents the audit revokes send nothing; returns
    /// the URL it had, if any.
    func stopNotifications(app: String) -> String? {
        let directory = provider.directory
        guard let groupID = directory.client(app)?.groupID, let url = directory.groups[groupID]?.notificationURL else { return nil }
        _ = try? provider.setNotificationURL(nil, app: app)
        return url
    }

    /// What an audit changes in the world for its cases, besides consents and grants: the signing keys and the app
    /// groups' notification URLs, as they were before it.
    struct Settings: Sendable {
        let keys: KeyRing
        let notificationURLs: [String: String?]
    }

    /// The signing keys and notification URLs now, to be put back by ``restore(_:)``.
    func settings() -> Settings {
        Settings(keys: provider.keyRing(), notificationURLs: provider.directory.groups.mapValues(\.notificationURL))
    }

    /// Puts back what ``settings()`` saw: the key that signed then signs again, the keys published since are
    /// retired, and each app group has its notification URL again. A world the audit leaves is as it found it in
    /// these, so one server can be audited again and again (at most ``KeyRing/capacity`` keys are published).
    func restore(_ settings: Settings) {
        let kept = Set(settings.keys.published.map(\.kid))
        try? provider.changeKeys(.activate(kid: settings.keys.activeKID))
        for key in provider.keyRing().published where !kept.contains(key.kid) { try? provider.changeKeys(.retire(kid: key.kid)) }
        let groups = provider.directory.groups
        for (groupID, url) in settings.notificationURLs where groups[groupID].map({ $0.notificationURL != url }) ?? false {
            _ = try? provider.setNotificationURL(url, app: groupID)
        }
    }

    /// Queues `kind` for the next matching request (every one while `count` is nil).
    func queue(_ kind: Fault.Kind, clientID: String?, count: Int? = 1) {
        _ = try? provider.queueFault(Fault(kind, clientID: clientID, count: count))
    }

    /// Drops every queued fault (a case's leftovers, when the relying party did not make the request).
    func clearFaults() { provider.clearFaults() }

    /// Signs with a new key from now on, published in `/auth/keys`; returns its `kid`.
    func rotateSigningKey() throws -> String {
        let generated = try KeyGenerator.generate(provider.keyRing().active.algorithm == .rs256 ? .rsa : .ec, kid: nil)
        let key = try SigningKey(kid: generated.kid, algorithm: provider.keyRing().active.algorithm, pem: generated.pem)
        try provider.changeKeys(.add(key))
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
