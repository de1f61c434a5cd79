/// JSON form of a persona for the admin API: every field but `id` may be left out and takes the
/// scenario default; `realUserStatus` is a name (`likelyReal`) or Apple's number.
extension Persona {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, firstName, lastName, email, emailChoice, realUserStatus, managed, orgID, emailVerified, relayForwarding
    }

    /// The members the JSON form may have.
    public static let fieldNames = ["id"] + Field.allCases.map(\.rawValue)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id),
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

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(firstName, forKey: .firstName)
        try container.encode(lastName, forKey: .lastName)
        try container.encode(email, forKey: .email)
        try container.encode(emailChoice, forKey: .emailChoice)
        try container.encode(realUserStatus, forKey: .realUserStatus)
        try container.encode(managed, forKey: .managed)
        try container.encode(orgID, forKey: .orgID)
        try container.encode(emailVerified, forKey: .emailVerified)
        try container.encode(relayForwarding, forKey: .relayForwarding)
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
