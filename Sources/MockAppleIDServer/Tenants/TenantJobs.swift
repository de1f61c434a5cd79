import Logging
import MockAppleID
import ServiceLifecycle

/// Every tenant's side jobs (its clock driver and notification sender), run as one service of the
/// server's group: a tenant made at run time starts its jobs here, a removed one stops them
/// (``Stop/ring()``), and graceful shutdown stops them all with the server's.
final class TenantJobs: Service {
    /// Ends one tenant's jobs.
    typealias Stop = Doorbell

    private let starts: AsyncStream<(provider: AppleIDProvider, stop: Stop)>
    private let continuation: AsyncStream<(provider: AppleIDProvider, stop: Stop)>.Continuation
    let logger: Logger

    init(logger: Logger) {
        (starts, continuation) = AsyncStream.makeStream()
        self.logger = logger
    }

    /// Starts the jobs of the tenant with `provider` (once the server runs); ring the answer to stop them.
    func start(_ provider: AppleIDProvider) -> Stop {
        let stop = Stop()
        continuation.yield((provider, stop))
        return stop
    }

    func run() async {
        let logger = self.logger
        await withDiscardingTaskGroup { group in
            for await (provider, stop) in starts.cancelOnGracefulShutdown() {
                group.addTask {
                    await withTaskGroup(of: Void.self) { jobs in
                        jobs.addTask { await ClockDriver(provider: provider).run() }
                        jobs.addTask { await NotificationSender(provider: provider, logger: logger).run() }
                        jobs.addTask { await stop.wait() }
                        await jobs.next()
                        jobs.cancelAll()
                    }
                }
            }
        }
    }
}

/// With a store other servers share, keeps this server's tenants those the store holds (see
/// ``TenantRegistry/follow()``), as a service of the server's group.
struct TenantFollower: Service {
    let tenants: TenantRegistry

    func run() async {
        await cancelWhenGracefulShutdown { await tenants.follow() }
    }
}
