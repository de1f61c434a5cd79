/// A person who signs in: their Apple Account as the consent page and tokens show it.
public struct Persona: Sendable, Equatable, Codable {
    /// The scenario's handle for the persona (not an Apple identifier).
    public var id: String
    public var firstName: String
    public var lastName: String
    /// The Apple Account's email; nil for an account with no shareable email.
    public var email: String?
    /// What the consent page pre-selects: share the real address or hide it behind a relay.
    public var emailChoice: EmailChoice
    /// `real_user_status` for native sign-ins (web tokens never carry it).
    public var realUserStatus: RealUserStatus
    /// A Managed Apple Account (Work & School): no Hide My Email, `email_verified` may be false.
    public var managed: Bool
    /// `org_id` for managed accounts.
    public var orgID: String?
    /// Whether the address is verified (`email_verified`); managed accounts may have false.
    public var emailVerified: Bool
    /// Whether mail to the persona's private relay addresses is forwarded (turning it off sends
    /// `email-disabled` to each app group that has the relay address, on again `email-enabled`).
    public var relayForwarding: Bool

    public init(
        id: String, firstName: String, lastName: String, email: String?, emailChoice: EmailChoice = .share,
        realUserStatus: RealUserStatus = .likelyReal, managed: Bool = false, orgID: String? = nil,
        emailVerified: Bool = true, relayForwarding: Bool = true
    ) {
        self.relayForwarding = relayForwarding
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
        self.emailChoice = emailChoice
        self.realUserStatus = realUserStatus
        self.managed = managed
        self.orgID = orgID
        self.emailVerified = emailVerified
    }

    /// Managed accounts cannot hide their address; accounts with no email have nothing to hide.
    public var canHideEmail: Bool { !managed && email != nil }
}

/// Share the Apple Account's address or hide it behind a private relay address.
public enum EmailChoice: String, Sendable, Codable, CaseIterable {
    case share, hide
}

/// Apple's `real_user_status`: 0 unsupported, 1 unknown, 2 likely real.
public enum RealUserStatus: Int, Sendable, Codable, CaseIterable {
    case unsupported = 0
    case unknown = 1
    case likelyReal = 2

    /// Scenario spelling (`unsupported`, `unknown`, `likelyReal`).
    public var name: String {
        switch self {
        case .unsupported: return "unsupported"
        case .unknown: return "unknown"
        case .likelyReal: return "likelyReal"
        }
    }

    /// Parses a scenario spelling or the number.
    public init?(name: String) {
        guard let value = Self.allCases.first(where: { $0.name == name || String($0.rawValue) == name }) else {
            return nil
        }
        self = value
    }
}
