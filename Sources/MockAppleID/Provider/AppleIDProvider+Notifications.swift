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
    /// Returns the group's primary App ID.
    @discardableResult
    public func setNotificationURL(_ url: String?, app: String) throws(NotificationError) -> String {
        if let url, let problem = settings.notificationURLPolicy.problem(with: url, kind: "notification URLs") {
            throw .invalidURL(problem)
        }
        return try world.transition(at: clock.now) { (state, events) throws(NotificationError) in
            let groupID = try state.directory.groupID(of: app)
            try state.setNotificationURL(url, groupID: groupID, events: &events)
            return groupID
        }
    }

    /// Sends `type` about the persona to the app group of `app` now, whatever the world's state (to
    /// exercise a receiver). Nil when the group has no notification URL (an event says so).
    @discardableResult
    public func notify(_ type: NotificationType, personaID: String, app: String) throws(NotificationError) -> NotificationDelivery? {
        let now = clock.now
        return try world.transition(at: now) { (state, events) throws(NotificationError) in
            try state.notify(type, personaID: personaID, groupID: try state.directory.groupID(of: app), at: now, events: &events)
        }
    }

    /// The claims of a notification of `type` about the persona to the app group of `app`, as the sender
    /// would sign them now under a fresh `jti`; nothing is queued or changed (for tools that post
    /// notifications themselves, such as the RP audit).
    public func notificationClaims(_ type: NotificationType, personaID: String, app: String) throws(NotificationError) -> JSONValue {
        let now = clock.now
        let notification = try world.read { state in
            Result { () throws(NotificationError) in
                guard let persona = state.persona(personaID) else { throw .unknownPersona(personaID) }
                if type.isEmailEvent, persona.email == nil { throw .noRelayAddress(personaID) }
                let groupID = try state.directory.groupID(of: app)
                guard let group = state.directory.groups[groupID] else { throw .unknownApp(groupID) }
                return state.serverNotification(type, persona: persona, group: group, at: now)
            }
        }.get()
        return NotificationPayload.claims(for: notification, id: AppleIdentifiers.jwtID(), issuer: settings.issuer, issuedAt: now,
                                          options: settings.notifications)
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

    /// Records an attempt's outcome. A failed attempt is due again after the retry schedule's next wait
    /// on the mock clock (its ``NotificationDelivery/nextAttempt``: advancing the clock past it makes it due).
    public func recordNotificationAttempt(_ outcome: DeliveryOutcome, id: String) {
        let now = clock.now
        world.transition(at: now) { state, events in
            state.recordNotificationAttempt(outcome, id: id, at: now, schedule: settings.notifications.retrySchedule, events: &events)
        }
    }

    /// When the next pending delivery is due on the mock clock (nil: none is pending); the sender sleeps until then.
    public func nextNotificationDue() -> Date? { world.read { $0.outbox.nextDue } }

    /// After a restore no attempt is under way: deliveries caught mid-send are due now.
    func resumeNotifications() {
        let now = clock.now
        world.transition(at: now) { state, _ in state.outbox.resumeAfterRestore(at: now) }
    }
}
