import Foundation

/// A notification ready to post: `POST url` with `body` (`{"payload": "<JWT>"}`).
public struct OutgoingNotification: Sendable, Equatable {
    /// The delivery id (the JWT's `jti`).
    public let id: String
    public let url: String
    public let body: String
    /// How long the attempt may take, in real seconds.
    public let timeout: TimeInterval
}

/// Server-to-server notifications: registering URLs, sending on request, and the two calls a sender
/// makes (take what is due, report each attempt). Transitions queue notifications themselves; see
/// ``WorldState/queueNotifications(for:at:options:events:)``.
extension AppleIDProvider {
    /// Registers (or with nil removes) the notification URL of the app group of `app` (a client id or
    /// primary App ID). The URL follows the return-URL rule: https, or loopback when the scenario allows it
    /// (`settings.allowLoopbackNotificationURLs`).
    public func setNotificationURL(_ url: String?, app: String) throws(NotificationError) {
        if let url, let problem = settings.notificationURLPolicy.problem(with: url, kind: "notification URLs") {
            throw .invalidURL(problem)
        }
        let groupID = try group(of: app)
        try world.transition(at: clock.now) { (state, events) throws(NotificationError) in
            try state.setNotificationURL(url, groupID: groupID, events: &events)
        }
    }

    /// Sends `type` about the persona to the app group of `app` now, whatever the world's state (to
    /// exercise a receiver). Nil when the group has no notification URL (an event says so).
    @discardableResult
    public func notify(_ type: NotificationType, personaID: String, app: String) throws(NotificationError) -> NotificationDelivery? {
        let groupID = try group(of: app)
        let now = clock.now
        let events = try world.transition(at: now) { (state, events) throws(NotificationError) -> [DomainEvent] in
            try state.notify(type, personaID: personaID, groupID: groupID, at: now, events: &events)
            return events
        }
        guard case let .notificationQueued(id, _, _, _)? = events.last else { return nil }
        return notificationDeliveries().first { $0.id == id }
    }

    /// Every delivery kept, oldest first, with its attempts.
    public func notificationDeliveries() -> [NotificationDelivery] { world.read { $0.notificationDeliveries } }

    /// Makes every undelivered notification (pending or failed) due now, with a fresh retry schedule.
    @discardableResult
    public func retryNotifications() -> Int {
        let now = clock.now
        return world.transition(at: now) { state, events in state.retryNotifications(at: now, events: &events) }
    }

    /// The deliveries due now, marked as being sent, each signed with the active `/auth/keys` key.
    /// For the one sender that posts them; it reports each with ``recordNotificationAttempt(_:id:)``.
    public func takeDueNotifications() -> [OutgoingNotification] {
        let now = clock.now
        let (due, key) = world.transition(at: now) { state, _ in (state.takeDueNotifications(at: now), state.keys.active) }
        return due.compactMap { delivery in
            let claims = NotificationPayload.claims(for: delivery, issuer: settings.issuer, issuedAt: now, options: settings.notifications)
            guard let jwt = try? JWS.sign(payload: claims, with: key) else {
                recordNotificationAttempt(.unreachable("signing the payload failed"), id: delivery.id)
                return nil
            }
            return OutgoingNotification(id: delivery.id, url: delivery.url,
                                        body: JSONValue.object([("payload", .string(jwt))]).serialized,
                                        timeout: settings.notifications.attemptTimeout)
        }
    }

    /// Records an attempt's outcome. A failed attempt is due again after the retry schedule's next
    /// wait, scheduled on the mock clock (advancing the clock past it makes it due at once).
    public func recordNotificationAttempt(_ outcome: DeliveryOutcome, id: String) {
        let now = clock.now
        let delivery = world.transition(at: now) { state, events in
            state.recordNotificationAttempt(outcome, id: id, at: now, schedule: settings.notifications.retrySchedule, events: &events)
        }
        guard let delivery, let next = delivery.nextAttempt else { return }
        scheduleAttempt(id: id, at: next, number: delivery.attempts.count + 1)
    }

    /// After a restore: deliveries caught mid-send are due now, and every pending one is scheduled on the clock again.
    func resumeNotifications() {
        let now = clock.now
        let due = world.transition(at: now) { state, _ in state.outbox.resumeAfterRestore(at: now) }
        for (id, date) in due { scheduleAttempt(id: id, at: date, number: nil) }
    }

    /// Logs ``DomainEvent/notificationAttemptDue(id:)`` (which wakes the sender) when the clock reaches `date`.
    private func scheduleAttempt(id: String, at date: Date, number: Int?) {
        _ = clock.schedule(at: date, label: "notification \(id) attempt\(number.map { " \($0)" } ?? "")") { [world] in
            world.record(.notificationAttemptDue(id: id), at: world.clock.now)
        }
    }

    func group(of app: String) throws(NotificationError) -> String {
        let directory = self.directory
        if let client = directory.client(app) { return client.groupID }
        guard directory.groups[app] != nil else { throw .unknownApp(app) }
        return app
    }
}
