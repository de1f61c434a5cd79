/// The registered world of a scenario: teams and their app groups, indexed by client id.
/// Built once at start and never changed.
public struct Directory: Sendable {
    public let teams: [String: Team]
    public let groups: [String: AppGroup]
    /// Every client id (bundle ids and Services IDs) in scenario order.
    public let clients: [Client]
    private let clientsByID: [String: Client]

    public init(teams: [Team], groups: [AppGroup]) {
        self.teams = Dictionary(teams.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.groups = Dictionary(groups.map { ($0.primaryAppID, $0) }, uniquingKeysWith: { first, _ in first })
        clients = groups.flatMap(\.clients)
        clientsByID = Dictionary(clients.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The client registered under `id` (case-sensitive, as Apple's).
    public func client(_ id: String) -> Client? { clientsByID[id] }

    /// The team owning `client`.
    public func team(of client: Client) -> Team? { teams[client.teamID] }
}
