/// JSON form of a persona for the admin API: every field but `id` may be left out and takes the
/// scenario default; `realUserStatus` is a name (`likelyReal`) or Apple's number.
extension Persona {
    /// The one member that is not a ``Field``.
    private enum IdentityKey: String, CodingKey { case id }

    /// The members the JSON form may have.
    public static let fieldNames = [IdentityKey.id.rawValue] + Field.allCases.map(\.rawValue)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Field.self)
        self.init(
            id: try decoder.container(keyedBy: IdentityKey.self).decode(String.self, forKey: .id),
            firstName: try container.decodeIfPresent(String.self, forKey: .firstName) ?? "",
            lastName: try container.decodeIfPresent(String.self, forKey: .lastName) ?? "",
            email: try container.decodeIfPresent(String.self, forKey: .email),
            emailChoice: try container.decodeIfPresent(EmailChoice.self, forKey: .emailChoice) ?? .share,
            realUserStatus: try container.decodeIfPresent(RealUserStatus.self, forKey: .realUserStatus) ?? .likelyReal,
            managed: try container.decodeIfPresent(Bool.self, forKey: .managed) ?? false,
            orgID: try container.decodeIfPresent(String.self, forKey: .orgID),
            emailVerified: try container.decodeIfPresent(Bool.self, forKey: .emailVerified) ?? true,
            relayForwarding: try container.decodeIfPresent(Bool.self, forKey: .relayForwarding) ?? true)
    }

    /// Every member, `id` first, then each ``Field`` (an exhaustive switch: a new field cannot be left unwritten).
    public func encode(to encoder: any Encoder) throws {
        var identity = encoder.container(keyedBy: IdentityKey.self)
        try identity.encode(id, forKey: .id)
        var container = encoder.container(keyedBy: Field.self)
        for field in Field.allCases {
            switch field {
            case .firstName: try container.encode(firstName, forKey: field)
            case .lastName: try container.encode(lastName, forKey: field)
            case .email: try container.encode(email, forKey: field)
            case .emailChoice: try container.encode(emailChoice, forKey: field)
            case .realUserStatus: try container.encode(realUserStatus, forKey: field)
            case .managed: try container.encode(managed, forKey: field)
            case .orgID: try container.encode(orgID, forKey: field)
            case .emailVerified: try container.encode(emailVerified, forKey: field)
            case .relayForwarding: try container.encode(relayForwarding, forKey: field)
            }
        }
    }
}

extension RealUserStatus {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self), let status = RealUserStatus(rawValue: number) {
            self = status
            return
        }
        let text = try container.decode(String.self)
        guard let status = RealUserStatus(name: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not unsupported, unknown or likelyReal")
        }
        self = status
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
