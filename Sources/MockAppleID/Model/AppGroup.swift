/// A primary App ID with the bundle ids and Services IDs grouped under it. Consent is given once
/// per group; every client in it belongs to the same team.
public struct AppGroup: Sendable, Codable {
    /// The primary App ID (bundle id form), which also names the group.
    public let primaryAppID: String
    /// The owning team's id.
    public let teamID: String
    /// Native clients (bundle ids), the primary App ID among them.
    public let bundleIDs: [String]
    /// Web clients.
    public let servicesIDs: [ServicesID]
    /// Where server-to-server notifications for the group are posted; nil sends none.
    public internal(set) var notificationURL: String?

    public init(primaryAppID: String, teamID: String, bundleIDs: [String], servicesIDs: [ServicesID], notificationURL: String? = nil) {
        self.primaryAppID = primaryAppID
        self.teamID = teamID
        self.bundleIDs = bundleIDs.contains(primaryAppID) ? bundleIDs : [primaryAppID] + bundleIDs
        self.servicesIDs = servicesIDs
        self.notificationURL = notificationURL
    }

    /// Every client of the group.
    public var clients: [Client] {
        bundleIDs.map { Client(id: $0, kind: .native, groupID: primaryAppID, teamID: teamID, returnURLs: []) }
            + servicesIDs.map {
                Client(id: $0.id, kind: .web, groupID: primaryAppID, teamID: teamID, returnURLs: $0.returnURLs)
            }
    }
}

/// A Services ID: the client id web sign-ins use, with its registered return URLs.
public struct ServicesID: Sendable, Codable {
    public let id: String
    /// Return URLs, matched exactly against `redirect_uri`.
    public let returnURLs: [String]

    public init(id: String, returnURLs: [String]) {
        self.id = id
        self.returnURLs = returnURLs
    }
}

/// A `client_id` as the endpoints see it.
public struct Client: Sendable, Equatable, Codable {
    /// Native apps use a bundle id; web, Android and Apple JS use a Services ID.
    public enum Kind: String, Sendable, Codable { case native, web }

    public let id: String
    public let kind: Kind
    /// The primary App ID of its group.
    public let groupID: String
    public let teamID: String
    /// Registered return URLs (none for native clients).
    public let returnURLs: [String]
}
