/// The registered world of a scenario: teams and their app groups, indexed by client id.
/// A value: the world holds the current one and replaces it when registrations change.
public struct Directory: Sendable {
    public private(set) var teams: [String: Team]
    public private(set) var groups: [String: AppGroup]
    /// Every client id (bundle ids and Services IDs) in scenario order.
    public private(set) var clients: [Client]
    private var clientsByID: [String: Client]

    public init(teams: [Team], groups: [AppGroup]) {
        self.teams = Dictionary(teams.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.groups = Dictionary(groups.map { ($0.primaryAppID, $0) }, uniquingKeysWith: { first, _ in first })
        clients = groups.flatMap(\.clients)
        clientsByID = Dictionary(clients.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The client registered under `id`, matched byte for byte as Apple matches it.
    public func client(_ id: String) -> Client? { clientsByID[exactly: id] }

    /// The app group `app` names: a client id's group, or the group of that primary App ID (one of its own bundle IDs
    /// as a scenario makes it, though a group read back from JSON may not list it), matched byte for byte. The one
    /// rule for everything that takes an app (notifications, relay forwarding, transfers, consents, the audit).
    public func group(named app: String) -> AppGroup? { client(app).flatMap { groups[$0.groupID] } ?? groups[exactly: app] }

    /// The primary App ID of the app group `app` names (``group(named:)``); an unknown app is refused.
    func groupID(of app: String) throws(NotificationError) -> String {
        guard let group = group(named: app) else { throw .unknownApp(app) }
        return group.primaryAppID
    }

    /// Registers (or with nil removes) the notification URL of the app group `groupID`.
    mutating func setNotificationURL(_ url: String?, group groupID: String) {
        groups[groupID]?.notificationURL = url
    }

    /// Moves app group `groupID` (and its clients) to team `teamID`.
    mutating func move(group groupID: String, to teamID: String) {
        guard let group = groups[groupID] else { return }
        groups[groupID] = AppGroup(primaryAppID: group.primaryAppID, teamID: teamID, bundleIDs: group.bundleIDs,
                                   servicesIDs: group.servicesIDs, notificationURL: group.notificationURL)
        clients = clients.map { client in
            client.groupID == groupID
                ? Client(id: client.id, kind: client.kind, groupID: groupID, teamID: teamID, returnURLs: client.returnURLs) : client
        }
        clientsByID = Dictionary(clients.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Replaces the email sources of team `teamID`.
    mutating func setEmailSources(_ sources: [String], team teamID: String) {
        teams[teamID]?.emailSources = sources
    }

    /// The team owning `client`.
    public func team(of client: Client) -> Team? { teams[client.teamID] }

    /// Teams and groups in a stable order, as a scenario lists them.
    var orderedTeams: [Team] { teams.values.sorted { $0.id < $1.id } }
    var orderedGroups: [AppGroup] {
        var seen = Set<String>()
        return clients.compactMap { client in seen.insert(client.groupID).inserted ? groups[client.groupID] : nil }
    }
}

extension Directory: Codable {
    private enum CodingKeys: String, CodingKey { case teams, groups }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(teams: try container.decode([Team].self, forKey: .teams), groups: try container.decode([AppGroup].self, forKey: .groups))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(orderedTeams, forKey: .teams)
        try container.encode(orderedGroups, forKey: .groups)
    }
}
