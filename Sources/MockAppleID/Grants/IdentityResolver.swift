/// Turns a persona and their consent into what tokens and the `user` field say about them.
enum IdentityResolver {
    /// The claims-level identity of `persona` (whose relay address under the client's team is
    /// `relayAddress`) signed in to `client` as `subject` under `consent`.
    static func identity(of persona: Persona, relayAddress: @autoclosure () -> String, subject: String, consent: Consent, client: Client,
                         realUserStatus: RealUserStatus? = nil, transferSubject: String?) -> SignedInIdentity {
        SignedInIdentity(
            clientID: client.id,
            subject: subject,
            email: email(of: persona, relayAddress: relayAddress, consent: consent),
            realUserStatus: realUserStatus,
            orgID: persona.managed ? persona.orgID : nil,
            transferSubject: transferSubject)
    }

    /// The email claim: the real address when shared, the team's relay address when hidden (derived only
    /// then), nothing when the email scope was not granted at first consent.
    static func email(of persona: Persona, relayAddress: () -> String, consent: Consent) -> EmailClaim? {
        guard consent.scopes.contains(.email), let address = persona.email else { return nil }
        switch consent.emailChoice {
        case .share:
            return EmailClaim(address: address, verified: persona.emailVerified, isPrivate: false)
        case .hide:
            return EmailClaim(address: relayAddress(), verified: true, isPrivate: true)
        }
    }

    /// The `user` JSON string of a first consent: `{"name":{"firstName":…,"lastName":…},"email":…}`,
    /// with keys only for the scopes granted.
    static func userJSON(persona: Persona, relayAddress: @autoclosure () -> String, consent: Consent, name: PersonName) -> String {
        var members: [(String, JSONValue)] = []
        if consent.scopes.contains(.name) {
            members.append(("name", .object([("firstName", .string(name.firstName)), ("lastName", .string(name.lastName))])))
        }
        if let email = email(of: persona, relayAddress: relayAddress, consent: consent) {
            members.append(("email", .string(email.address)))
        }
        return JSONValue.object(members).serialized
    }
}

/// A name as the user typed it on the consent page (free text Apple passes through unchecked).
public struct PersonName: Sendable, Equatable, Codable {
    public var firstName: String
    public var lastName: String

    public init(firstName: String, lastName: String) {
        self.firstName = firstName
        self.lastName = lastName
    }
}

extension PersonName {
    /// The name a first sign-in sends in `user`: the persona's, with each part the user typed on the
    /// consent page in its place (a part left empty keeps the persona's).
    static func sent(for persona: Persona, edited: PersonName?) -> PersonName {
        func part(_ typed: String?, else own: String) -> String { typed.map { $0.isEmpty ? own : $0 } ?? own }
        return PersonName(firstName: part(edited?.firstName, else: persona.firstName),
                          lastName: part(edited?.lastName, else: persona.lastName))
    }
}
