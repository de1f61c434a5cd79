import Foundation

/// Why a persona change was refused.
public struct PersonaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
    enum Base: Sendable, Equatable {
        case alreadyExists(String)
        case notFound(String)
        case invalid(String)
    }

    /// Which of them.
    let base: Base

    public static func alreadyExists(_ id: String) -> Self { Self(base: .alreadyExists(id)) }
    public static func notFound(_ id: String) -> Self { Self(base: .notFound(id)) }
    public static func invalid(_ message: String) -> Self { Self(base: .invalid(message)) }

    public var description: String {
        switch base {
        case let .alreadyExists(id): return "persona \"\(id)\" already exists"
        case let .notFound(id): return "persona \"\(id)\" does not exist"
        case let .invalid(message): return message
        }
    }

    /// The longest persona id, name part or email accepted.
    public static let fieldLimit = 256

    static func check(_ persona: Persona) throws(PersonaError) {
        guard !persona.id.isEmpty else { throw .invalid("persona id must not be empty") }
        for (name, value) in [("id", persona.id), ("firstName", persona.firstName), ("lastName", persona.lastName),
                              ("email", persona.email ?? ""), ("orgID", persona.orgID ?? "")]
        where value.utf8.count > fieldLimit {
            throw .invalid("\(name) must be at most \(fieldLimit) bytes")
        }
        if let email = persona.email, !email.contains("@" as Character) { throw .invalid("\"\(email)\" is not an email address") }
        if persona.emailChoice == .hide && !persona.canHideEmail {
            throw .invalid(persona.managed ? "a managed account cannot hide its email" : "a persona without email has nothing to hide")
        }
    }
}

extension WorldState {
    /// The most personas a world holds.
    public static let personaCapacity = 10_000

    /// Adds a persona, or re-creates one whose account was deleted (it gets a new `sub`).
    mutating func create(_ persona: Persona, events: inout [DomainEvent]) throws(PersonaError) {
        try PersonaError.check(persona)
        if let index = personas.firstIndex(where: { $0.id == persona.id }) {
            guard deletedAccounts.remove(persona.id) != nil else { throw .alreadyExists(persona.id) }
            personas[index] = persona
            accountGenerations[persona.id, default: 0] += 1
        } else {
            guard personas.count < Self.personaCapacity else { throw .invalid("at most \(Self.personaCapacity) personas") }
            personas.append(persona)
        }
        events.append(.personaCreated(personaID: persona.id))
    }

    /// Replaces a persona (matched by id). Consents stay; tokens issued later show the new data.
    mutating func update(_ persona: Persona, events: inout [DomainEvent]) throws(PersonaError) {
        guard let index = personas.firstIndex(where: { $0.id == persona.id }) else { throw .notFound(persona.id) }
        try PersonaError.check(persona)
        let before = personas[index]
        let forwardingBefore = forwardingInUse(personaID: persona.id)
        personas[index] = persona
        events.append(.personaChanged(personaID: persona.id, fields: before.changedFields(to: persona)))
        // The persona's setting is every address's: changing it sets them all.
        if before.relayForwarding != persona.relayForwarding {
            forgetRelayForwarding(of: persona.id)
            announceForwardingChanges(personaID: persona.id, since: forwardingBefore, events: &events)
        }
    }

    /// The user stops using Sign in with Apple with an app group: its consent, codes and tokens end.
    mutating func revokeConsent(personaID: String, groupID: String, at now: Date, events: inout [DomainEvent]) throws(PersonaError) {
        guard persona(personaID) != nil else { throw .notFound(personaID) }
        guard directory.groups[groupID] != nil else { throw .invalid("no app group has primary App ID \(groupID)") }
        let key = ConsentKey(personaID: personaID, groupID: groupID)
        guard consents[key] != nil else { throw .invalid("persona \(personaID) has not signed in to app group \(groupID)") }
        revokeConsent(key, cause: .userRevoked, at: now, events: &events)
    }

    /// Deletes the persona's Apple Account: every consent and grant ends and sign-in is refused
    /// until the persona is created again.
    mutating func deleteAccount(personaID: String, at now: Date, events: inout [DomainEvent]) throws(PersonaError) {
        guard persona(personaID) != nil else { throw .notFound(personaID) }
        guard !deletedAccounts.contains(personaID) else { throw .invalid("persona \(personaID)'s account is already deleted") }
        for key in consents.keys where key.personaID == personaID {
            revokeConsent(key, cause: .accountDeleted, at: now, events: &events)
        }
        forgetRelayDomains(of: personaID)
        deletedAccounts.insert(personaID)
        forgetRelayForwarding(of: personaID)
        if autoApprove?.persona == personaID {
            autoApprove = nil
            events.append(.autoApproveChanged(nil))
        }
        events.append(.accountDeleted(personaID: personaID))
    }

    mutating func setAutoApprove(_ value: AutoApprove?, events: inout [DomainEvent]) throws(PersonaError) {
        if let value {
            guard persona(value.persona) != nil else { throw .notFound(value.persona) }
            guard !deletedAccounts.contains(value.persona) else { throw .invalid("persona \(value.persona)'s account is deleted") }
        }
        autoApprove = value
        events.append(.autoApproveChanged(value))
    }
}

extension Persona {
    /// A persona's fields besides its `id`, as the admin API and scenario files name them: the keys of its JSON form.
    public enum Field: String, Sendable, Codable, CaseIterable, CodingKey {
        case firstName, lastName, email, emailChoice, realUserStatus, managed, orgID, emailVerified, relayForwarding
    }

    /// The fields that differ in `other`.
    func changedFields(to other: Persona) -> [Field] {
        Field.allCases.filter { field in
            switch field {
            case .firstName: return firstName != other.firstName
            case .lastName: return lastName != other.lastName
            case .email: return email != other.email
            case .emailChoice: return emailChoice != other.emailChoice
            case .realUserStatus: return realUserStatus != other.realUserStatus
            case .managed: return managed != other.managed
            case .orgID: return orgID != other.orgID
            case .emailVerified: return emailVerified != other.emailVerified
            case .relayForwarding: return relayForwarding != other.relayForwarding
            }
        }
    }
}
