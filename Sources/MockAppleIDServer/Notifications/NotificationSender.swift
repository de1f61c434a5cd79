import AsyncHTTPClient
import Foundation
import Logging
import MockAppleID
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Posts server-to-server notifications as they come due, with async-http-client: a queued notification
/// or an admin retry wakes it (``World/notificationsQueued``), and so does the mock clock reaching the
/// earliest retry (it schedules its own wake-up there); it takes what is due from the provider, posts each
/// concurrently and reports every attempt. At graceful shutdown it takes nothing new and lets the
/// attempts under way end.
///
/// When the world is shared with other servers, only the one that leads sends (so each event is
/// delivered once): it takes over what a dead leader was sending, and the store wakes it when the
/// others queue deliveries or move the clock.
struct NotificationSender: Service {
    let provider: AppleIDProvider
    let logger: Logger

    /// The most bytes of a receiver's answer read (the status is what counts).
    static let answerLimit = 64 * 1024
    /// How soon the leader of a shared world looks again after it could not hold the world, or listens again
    /// for the others' writes after listening ended.
    static let sharedRetryInterval = Duration.seconds(1)

    func run() async {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = .init(connect: .seconds(5))
        let http = OnDemandHTTPClient(configuration: configuration)
        let wakeUp = provider.world.notificationsQueued
        await withGracefulShutdownHandler {
            if let lease = provider.world.notificationLease {
                await sendWhileLeading(lease, with: http)
            } else {
                await send(with: http)
            }
        } onGracefulShutdown: {
            wakeUp.ring()
        }
        await http.shutdown()
    }

    /// Whether to go on: neither cancelled nor shutting down.
    private var goingOn: Bool { !Task.isCancelled && !Task.isShuttingDownGracefully }

    /// Sends what is due, then sleeps until something is queued or the clock reaches the next retry.
    private func send(with http: OnDemandHTTPClient) async {
        await withDiscardingTaskGroup { group in
            while goingOn {
                await postDue(with: http, in: &group)
                await waitForWork()
            }
        }
    }

    /// Waits to lead, then sends what is due (what the last leader was sending first) until it no longer
    /// leads. Besides this server's own changes, the store wakes it when another server writes deliveries
    /// or the clock; a look that could not hold the world is tried again after ``sharedRetryInterval``.
    private func sendWhileLeading(_ store: any NotificationLease, with http: OnDemandHTTPClient) async {
        let wakeUp = provider.world.notificationsQueued
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await store.lead()
                guard !Task.isCancelled else { return }
                logger.notice("sending notifications for the servers sharing \(store.name)")
                _ = try? await provider.performSideJob { provider.takeOverNotifications() }
                await withTaskGroup(of: Void.self) { watching in
                    watching.addTask {
                        // Until the loop below stops (it no longer leads): listening again after a second when
                        // listening ended (the loop, rung, finds out whether it still leads).
                        await repeatUntilCancelled(pausing: Self.sharedRetryInterval) {
                            await store.watchSenderWork { wakeUp.ring() }
                            wakeUp.ring()
                        }
                    }
                    await withDiscardingTaskGroup { group in
                        while await store.stillLeading(), !Task.isCancelled {
                            let looked = await postDue(with: http, in: &group)
                            await waitForWork(atMost: looked ? nil : Self.sharedRetryInterval)
                        }
                    }
                    watching.cancelAll()
                }
            }
        }
    }

    /// Sleeps until something is queued or made due, or the clock reaches the next retry (at most `limit`).
    private func waitForWork(atMost limit: Duration? = nil) async {
        let wakeUp = provider.world.notificationsQueued
        let retry = provider.nextNotificationDue().map { due in
            provider.clock.schedule(at: due, label: "notifications due") { wakeUp.ring() }
        }
        await wakeUp.wait(atMost: limit)
        if let retry { provider.clock.cancel(retry) }
    }

    /// Posts what is due, each in a task of its own; false when a shared world could not be held.
    @discardableResult
    private func postDue(with http: OnDemandHTTPClient, in group: inout DiscardingTaskGroup) async -> Bool {
        guard let due = try? await provider.performSideJob({ provider.takeDueNotifications() }) else { return false }
        for outgoing in due {
            group.addTask {
                let outcome = await post(outgoing, with: http)
                do throws(StateStoreError) {
                    try await provider.performSideJob { provider.recordNotificationAttempt(outcome, id: outgoing.id) }
                } catch {
                    logger.error("notification \(outgoing.id): the attempt's outcome was not saved: \(error.message)")
                }
                logger.log(level: outcome.succeeded ? .info : .notice, "notification \(outgoing.id) to \(outgoing.url): \(outcome.summary)")
            }
        }
        return true
    }

    /// One attempt, answer body included, within the attempt timeout (async-http-client's deadline
    /// ends once the answer's head arrives, so a receiver that stalls its body is cut off here).
    private func post(_ outgoing: OutgoingNotification, with http: OnDemandHTTPClient) async -> DeliveryOutcome {
        await withDeadline(.seconds(outgoing.timeout)) { await attempt(outgoing, with: http) }
            ?? .unreachable("timed out after \(outgoing.timeout) s")
    }

    private func attempt(_ outgoing: OutgoingNotification, with http: OnDemandHTTPClient) async -> DeliveryOutcome {
        var request = HTTPClientRequest(url: outgoing.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "mock-appleid")
        request.body = .bytes(ByteBuffer(string: outgoing.body))
        let timeout = TimeAmount.milliseconds(Int64(TimeRange.wholeSeconds(outgoing.timeout * 1000)))
        do {
            let response = try await http.client.execute(request, timeout: timeout)
            _ = try? await response.body.collect(upTo: Self.answerLimit)
            return .answered(status: Int(response.status.code))
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            return .unreachable("timed out after \(outgoing.timeout) s")
        } catch {
            return .unreachable("\(error)")
        }
    }
}
