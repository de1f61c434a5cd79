import Hummingbird
import Logging
import MockAppleID
import Synchronization

/// The tenants of one server: isolated worlds, each made from a scenario and answering under
/// `/t/<name>/` (Apple's endpoints, pages, discovery and its own admin API), so that parallel CI jobs
/// can share one deployment without seeing each other's personas, grants or clock. Each tenant has
/// its own provider, clock driver and notification sender; with a ``TenantStore`` (the state file, or
/// a database several servers share) each is written down and kept, and made again at the next start.
/// With a shared database, every server serves every tenant, whichever server made it.
public final class TenantRegistry: Sendable {
    /// One tenant: its world and the routers that answer for it.
    struct Tenant: Sendable {
        let provider: AppleIDProvider
        let record: TenantRecord
        /// By listener scheme (`http`, `https`).
        let responders: [String: ServerResponder]
        /// Stops its clock driver and notification sender.
        let stopJobs: TenantJobs.Stop
    }

    /// The most tenants one server holds.
    public static let capacity = 100

    /// The path prefix tenants answer under.
    static let pathPrefix = "/t/"

    /// The tenants served and the names being made or removed (so that two requests cannot race for one name),
    /// under one lock.
    private let table = Mutex(TenantTable<Tenant>(capacity: TenantRegistry.capacity))
    /// Rung when the tenants another server changed should be read again: when the store announces a
    /// change, and when a tenant was made here, by the admin API or by a request for one another server
    /// made (another server's removal of it, announced while it was being made, may have been read
    /// before it was served here, and so not have dropped it).
    private let othersChanged = Doorbell()
    /// The server's own scenario, for tenants made without scenario text.
    let scenario: Scenario
    let configuration: ServerConfiguration
    let store: (any TenantStore)?
    /// The server's listeners, which a tenant's health reports under its path.
    let listeners: BoundListeners
    let logger: Logger
    /// The tenants' clock drivers and notification senders: a service of the server's group.
    let jobs: TenantJobs

    init(scenario: Scenario, configuration: ServerConfiguration, store: (any TenantStore)?, listeners: BoundListeners, logger: Logger) {
        self.scenario = scenario
        self.configuration = configuration
        self.store = store
        self.listeners = listeners
        self.logger = logger
        self.jobs = TenantJobs(logger: logger)
    }

    /// The tenants' names and providers, in name order.
    public var all: [(name: String, provider: AppleIDProvider)] {
        table.withLock { $0.entries.values.map { ($0.record.name, $0.provider) }.sorted { $0.name < $1.name } }
    }

    /// The provider of tenant `name`.
    public func provider(_ name: String) -> AppleIDProvider? { table.withLock { $0.entries[name]?.provider } }

    func responder(_ name: String, scheme: String) -> ServerResponder? {
        table.withLock { $0.entries[name]?.responders[scheme] }
    }

    /// Makes tenant `record.name` from its scenario (the server's own when the record has no text),
    /// writes it down in the store, and starts serving it.
    @discardableResult
    public func create(_ record: TenantRecord) async throws(TenantError) -> AppleIDProvider {
        try Self.check(name: record.name)
        try reserve(record.name, creating: true)
        var made = false
        defer {
            release(record.name)
            // Once released, so that the read it asks for may drop it (see `othersChanged`).
            if made, store?.isShared == true { othersChanged.ring() }
        }
        let provider = try makeProvider(record)
        if let store {
            do throws(StateStoreError) { try await store.addTenant(record) } catch {
                // With a shared store, another server may have made it meanwhile: then it is not ours to remove.
                throw await sharedRecord(named: record.name) != nil ? .exists(record.name) : .notSaved(error.message)
            }
            do throws(StateStoreError) { try await store.keepWorld(of: provider, tenant: record.name) } catch {
                try? await provider.stopKeepingState()
                try? await store.removeTenant(named: record.name)
                throw .notSaved(error.message)
            }
        }
        start(provider, record)
        made = true
        return provider
    }

    /// Removes tenant `name` with everything it held; false when there is none.
    @discardableResult
    public func remove(_ name: String) async throws(TenantError) -> Bool {
        try reserve(name, creating: false)
        defer { release(name) }
        guard let tenant = table.withLock({ $0.remove(name) }) else {
            // With a shared store, another server may have made it and this one not served it yet.
            guard let store, await sharedRecord(named: name) != nil else { return false }
            do throws(StateStoreError) { try await store.removeTenant(named: name) } catch { throw .notSaved(error.message) }
            return true
        }
        tenant.stopJobs.ring()
        // Its rows are about to be deleted; a write that failed no longer matters.
        try? await tenant.provider.stopKeepingState()
        if let store {
            do throws(StateStoreError) { try await store.removeTenant(named: name) } catch { throw .notSaved(error.message) }
        }
        return true
    }

    /// Makes again every tenant the store holds, each with its world restored. Before serving.
    func restore() async throws(TenantError) {
        guard let store else { return }
        let records: [TenantRecord]
        do throws(StateStoreError) { records = try await store.tenants() } catch { throw .notSaved(error.message) }
        for record in records {
            let provider: AppleIDProvider
            do throws(TenantError) { provider = try makeProvider(record) } catch {
                throw .invalidScenario("tenant \(record.name) cannot be made again: \(error.description)")
            }
            do throws(StateStoreError) { try await store.keepWorld(of: provider, tenant: record.name) } catch {
                // Another server may have removed it meanwhile; following the store sorts that out.
                guard store.isShared else { throw .notSaved(error.message) }
                await store.forget(record.name)
                logger.error("tenant \(record.name) cannot be served now: \(error.message)")
                continue
            }
            start(provider, record)
        }
    }

    // MARK: Following other servers

    /// How long a server whose store other servers share waits before it reads the tenants again after
    /// a read failed, or listens again after listening ended; and how long a name it looked up there in
    /// vain is not looked up again.
    static let followInterval = Duration.seconds(1)
    /// How long a server following the tenants waits for the store's word before it reads them anyway:
    /// a listening connection that died unnoticed does not leave it behind for longer.
    static let followCheckInterval = Duration.seconds(60)

    /// With a store other servers share: keeps this server's tenants those the store holds, for ever
    /// (a tenant another server made is served here too; one it removed is dropped here). The tenants
    /// are read when the store announces a change (``TenantStore/watchTenants(_:)``), and each time it
    /// starts listening, so a change made while it did not listen is not missed.
    func follow() async {
        guard let store, store.isShared else { return }
        let changed = othersChanged
        await withTaskGroup(of: Void.self) { watching in
            watching.addTask {
                await repeatUntilCancelled(pausing: Self.followInterval) { await store.watchTenants { changed.ring() } }
            }
            // Logged once per run of failures: while the database is down, the read is tried every interval.
            var failing = false
            while !Task.isCancelled {
                await changed.wait(atMost: failing ? Self.followInterval : Self.followCheckInterval)
                guard !Task.isCancelled else { break }
                failing = !(await catchUp(with: store, failing: failing))
            }
            watching.cancelAll()
        }
    }

    /// Serves the tenants the store holds and drops those it no longer does; false when it cannot be read.
    private func catchUp(with store: any TenantStore, failing: Bool) async -> Bool {
        // Only tenants served before the store is read may be dropped: one made since is not in what it returns.
        let served = all.map(\.name)
        let records: [TenantRecord]
        do throws(StateStoreError) { records = try await store.tenants() } catch {
            if !failing { logger.notice("tenants: \(error.message)") }
            return false
        }
        // A tenant removed and made again (perhaps from another scenario) is served afresh.
        let remade = records.filter { record in table.withLock { $0.entries[record.name].map { $0.record != record } ?? false } }
        for record in remade { await drop(record.name, from: store) }
        // A shutdown under way ends the catch-up: each tenant made now would only fail, and say so in the log.
        for record in records where provider(record.name) == nil && !Task.isCancelled { await join(record, from: store) }
        let kept = Set(records.map(\.name))
        for name in served where !kept.contains(name) { await drop(name, from: store) }
        return true
    }

    /// Serves tenant `name` when another server sharing the store made it (a request for a tenant this
    /// server does not know yet); returns whether it serves it now.
    func join(_ name: String) async -> Bool {
        guard let store, store.isShared, (try? Self.check(name: name)) != nil else { return false }
        // A name the store did not hold is not looked up again for a while: requests for unknown names
        // cost the database one read per name and interval.
        if table.withLock({ $0.missedRecently(name, now: .now, within: Self.followInterval) }) { return false }
        // Following the store, this server may be making or dropping the tenant meanwhile: once that is
        // done, it looks again (a tenant removed and made again elsewhere is dropped, then made).
        for _ in 0..<3 {
            await settled(name)
            if provider(name) != nil { return true }
            guard let record = await sharedRecord(named: name) else {
                table.withLock { $0.recordMiss(name, at: .now) }
                return false
            }
            switch await join(record, from: store) {
            case .busy: continue
            case .served: othersChanged.ring()
            case .failed: break
            }
            return provider(name) != nil
        }
        return false
    }

    /// What making a tenant another server made came to here.
    private enum Joining { case served, busy, failed }

    @discardableResult
    private func join(_ record: TenantRecord, from store: any TenantStore) async -> Joining {
        do throws(TenantError) { try reserve(record.name, creating: true) } catch {
            return error == .busy(record.name) ? .busy : .failed
        }
        defer { release(record.name) }
        do {
            let provider = try makeProvider(record)
            do throws(StateStoreError) { try await store.keepWorld(of: provider, tenant: record.name) } catch {
                throw TenantError.notSaved(error.message)
            }
            start(provider, record)
            return .served
        } catch {
            await store.forget(record.name)
            logger.error("tenant \(record.name), made by another server, cannot be served here: \(error)")
            return .failed
        }
    }

    /// Tenant `name` as a store other servers share holds it (nil without one, or when it cannot be read).
    private func sharedRecord(named name: String) async -> TenantRecord? {
        guard let store, store.isShared else { return nil }
        return (try? await store.tenants())?.first { $0.name == name }
    }

    /// Stops serving a tenant another server removed (its world is gone from the store).
    private func drop(_ name: String, from store: any TenantStore) async {
        guard (try? reserve(name, creating: false)) != nil else { return }
        defer { release(name) }
        guard let tenant = table.withLock({ $0.remove(name) }) else { return }
        tenant.stopJobs.ring()
        try? await tenant.provider.stopKeepingState()
        await store.forget(name)
    }

    /// Stops every tenant's services and saves what is pending (the store stays as it is).
    func shutdown() async {
        let stopping = table.withLock { $0.removeAll() }
        for tenant in stopping {
            tenant.stopJobs.ring()
            do throws(StateStoreError) { try await tenant.provider.stopKeepingState() } catch {
                logger.error("tenant \(tenant.record.name): state not saved: \(error.message)")
            }
        }
    }

    // MARK: Making a tenant

    private func makeProvider(_ record: TenantRecord) throws(TenantError) -> AppleIDProvider {
        let tenantScenario: Scenario
        if let yaml = record.scenarioYAML {
            do throws(ScenarioError) {
                tenantScenario = try ScenarioLoader.load(yaml: yaml, file: record.scenarioFile ?? "tenant \(record.name)",
                                                         resources: EmbeddedResources(files: record.files, origin: "the request"))
            } catch {
                throw .invalidScenario(error.description)
            }
        } else {
            tenantScenario = scenario
        }
        do { return try AppleIDProvider(scenario: tenantScenario) } catch { throw .invalidScenario(error.description) }
    }

    /// Builds the tenant's responders (one per listener scheme), starts its clock driver and notification
    /// sender, and makes it reachable.
    private func start(_ provider: AppleIDProvider, _ record: TenantRecord) {
        var tenantConfiguration = configuration
        tenantConfiguration.pathPrefix = Self.pathPrefix + record.name
        let server = MockAppleIDServer(provider: provider, configuration: tenantConfiguration, logger: logger, servesTenants: false,
                                       listeners: listeners)
        let responders = Dictionary(uniqueKeysWithValues: ["http", "https"].map { ($0, server.makeRouter(scheme: $0).buildResponder()) })
        let stopJobs = jobs.start(provider)
        table.withLock { $0.insert(Tenant(provider: provider, record: record, responders: responders, stopJobs: stopJobs), named: record.name) }
    }

    private func reserve(_ name: String, creating: Bool) throws(TenantError) {
        try table.withLock { (table: inout TenantTable<Tenant>) throws(TenantError) in try table.reserve(name, creating: creating) }
    }

    private func release(_ name: String) {
        for waiter in table.withLock({ $0.release(name) }) { waiter.resume() }
    }

    /// Returns once tenant `name` is not being made or removed here (a request cancelled meanwhile waits
    /// too: making or removing a tenant is bounded by the store's step deadline).
    private func settled(_ name: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !table.withLock({ $0.wait(for: name, continuation) }) { continuation.resume() }
        }
    }

    /// 1 to 63 lowercase letters, digits, `-` and `_`, starting with a letter or digit: a path segment as it is.
    static func check(name: String) throws(TenantError) {
        let characters = Array(name.utf8)
        guard (1...63).contains(characters.count), let first = characters.first,
              Self.isLowercaseAlphanumeric(first),
              characters.allSatisfy({ Self.isLowercaseAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else {
            throw .invalidName(name)
        }
    }

    private static func isLowercaseAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

/// Why a tenant could not be made or removed.
public struct TenantError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
    enum Base: Sendable, Equatable {
        case invalidName(String)
        case exists(String)
        case busy(String)
        case full(Int)
        case invalidScenario(String)
        /// The tenant store could not be written.
        case notSaved(String)
    }

    /// Which of them.
    let base: Base

    public static func invalidName(_ name: String) -> Self { Self(base: .invalidName(name)) }
    public static func exists(_ name: String) -> Self { Self(base: .exists(name)) }
    public static func busy(_ name: String) -> Self { Self(base: .busy(name)) }
    public static func full(_ capacity: Int) -> Self { Self(base: .full(capacity)) }
    public static func invalidScenario(_ message: String) -> Self { Self(base: .invalidScenario(message)) }
    /// The tenant store could not be written.
    public static func notSaved(_ message: String) -> Self { Self(base: .notSaved(message)) }

    public var description: String {
        switch base {
        case let .invalidName(name):
            return "tenant name \"\(name.prefix(80))\" must be 1 to 63 lowercase letters, digits, - and _, starting with a letter or digit"
        case let .exists(name): return "tenant \(name) exists already"
        case let .busy(name): return "tenant \(name) is being made or removed by another request"
        case let .full(capacity): return "this server holds at most \(capacity) tenants; remove one first"
        case let .invalidScenario(message): return message
        case let .notSaved(message): return message
        }
    }
}
