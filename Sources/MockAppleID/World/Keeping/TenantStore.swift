/// A store holding several isolated worlds: the server's own and one per tenant (`/t/<tenant>/…`).
/// Each tenant is written down with the scenario it was made from, so that the next start can make
/// it again and restore its world (``keepWorld(of:tenant:)``).
public protocol TenantStore: Sendable {
    /// The tenants kept, in the order they were added.
    func tenants() async throws(StateStoreError) -> [TenantRecord]

    /// Writes a new tenant down (before its world is attached).
    func addTenant(_ tenant: TenantRecord) async throws(StateStoreError)

    /// Removes a tenant and every row of its world.
    func removeTenant(named name: String) async throws(StateStoreError)

    /// Keeps the world of tenant `name` (written down already) in this store from now on: restored
    /// from it when it holds one, or saved in it.
    func keepWorld(of provider: AppleIDProvider, tenant name: String) async throws(StateStoreError)

    /// Whether other servers share the store, so that tenants they add or remove must be followed.
    var isShared: Bool { get }

    /// Lets go of what this server holds for a tenant another server removed (its connections).
    func forget(_ name: String) async

    /// With a store other servers share: calls `changed` once it watches, then whenever a server adds or
    /// removes a tenant. Returns when it can watch no longer (its connection ended), or when the task is
    /// cancelled.
    func watchTenants(_ changed: @escaping @Sendable () -> Void) async
}

extension TenantStore {
    public var isShared: Bool { false }
    public func forget(_ name: String) async {}

    /// A store that cannot announce changes: calls `changed` every second while the task runs.
    public func watchTenants(_ changed: @escaping @Sendable () -> Void) async {
        await repeatUntilCancelled(pausing: .seconds(1)) { changed() }
    }
}

/// A tenant as a store keeps it: its name and the scenario it was made from.
public struct TenantRecord: Sendable, Equatable, Codable {
    public let name: String
    /// Scenario-file text and the key files it names (path to text); nil for the server's own scenario.
    public let scenarioYAML: String?
    /// The name the scenario text is known by in error messages.
    public let scenarioFile: String?
    public let files: [String: String]

    public init(name: String, scenarioYAML: String? = nil, scenarioFile: String? = nil, files: [String: String] = [:]) {
        self.name = name
        self.scenarioYAML = scenarioYAML
        self.scenarioFile = scenarioFile
        self.files = files
    }
}
