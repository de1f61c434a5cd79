import Foundation

/// Why a notification could not be sent or a URL registered.
public struct NotificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
    enum Base: Sendable, Equatable {
        case unknownPersona(String)
        case unknownApp(String)
        case invalidURL(String)
        case noRelayAddress(String)
    }

    /// Which of them.
    let base: Base

    public static func unknownPersona(_ id: String) -> Self { Self(base: .unknownPersona(id)) }
    public static func unknownApp(_ id: String) -> Self { Self(base: .unknownApp(id)) }
    public static func invalidURL(_ problem: String) -> Self { Self(base: .invalidURL(problem)) }
    public static func noRelayAddress(_ id: String) -> Self { Self(base: .noRelayAddress(id)) }

    public var description: String {
        switch base {
        case let .unknownPersona(id): return "persona \"\(id)\" does not exist"
        case let .unknownApp(id): return "no app group or client has id \(id)"
        case let .invalidURL(problem): return problem
        case let .noRelayAddress(id): return "persona \"\(id)\" has no email, so no relay address for an email event"
        }
    }
}

extension WorldState {
    /// Queues the notifications that `changes` call for, as Apple sends them: `consent-revoked` when the
    /// user stops using Sign in with Apple with an app group (and on `/auth/revoke` if
    /// `options.onTokenRevocation`), the account-deletion event to every group the account had signed
    /// in to, and `email-disabled`/`email-enabled` to the groups that use a relay address whose forwarding
    /// the person turned off or on.
    mutating func queueNotifications(for changes: [DomainEvent], at now: Date, options: NotificationOptions, events: inout [DomainEvent]) {
        for change in changes {
            switch change {
            case let .consentRevoked(personaID, groupID, cause):
                switch cause {
                case .userRevoked: queue(.consentRevoked, personaID: personaID, groupID: groupID, at: now, events: &events)
                case .revokeEndpoint where options.onTokenRevocation:
                    queue(.consentRevoked, personaID: personaID, groupID: groupID, at: now, events: &events)
                case .accountDeleted: queue(.accountDeleted, personaID: personaID, groupID: groupID, at: now, events: &events)
                case .revokeEndpoint: break
                }
            case let .relayForwardingChanged(personaID, teamID, _, forwarding):
                for groupID in groupsUsingRelayAddress(personaID: personaID, teamID: teamID) {
                    queue(forwarding ? .emailEnabled : .emailDisabled, personaID: personaID, groupID: groupID, at: now, events: &events)
                }
            // Every other event notifies no one (listed, so that a new event is a decision, not a silent skip).
            case .signInApproved, .consentPageShown, .delivered, .signInCancelled, .codeRedeemed,
                 .tokensRefreshed, .tokenRevoked, .revocationIgnored, .personaCreated, .personaChanged,
                 .accountDeleted, .autoApproveChanged, .keyAdded, .keyActivated, .keyRetired,
                 .jwksShuffleChanged, .clockChanged, .faultQueued, .faultApplied, .scheduledChangeFailed,
                 .notificationURLChanged, .notificationQueued, .notificationUnrouted, .notificationAttempted,
                 .notificationsRetried, .notificationDropped, .emailSourcesChanged, .relayMailDelivered,
                 .relayMailRefused, .relayMailForwarded, .relayInboxesCleared, .appTransferred, .teamTokenIssued,
                 .userMigrated, .relayDomainChanged, .timelineStep, .worldReset, .request:
                continue
            }
        }
    }

    /// Queues a notification on request (admin API, Swift API, timeline), whatever the world's state;
    /// returns the delivery, nil when the group has no notification URL (an event says so).
    mutating func notify(_ type: NotificationType, personaID: String, groupID: String, at now: Date,
                         events: inout [DomainEvent]) throws(NotificationError) -> NotificationDelivery? {
        guard let persona = persona(personaID) else { throw .unknownPersona(personaID) }
        guard directory.groups[groupID] != nil else { throw .unknownApp(groupID) }
        if type.isEmailEvent, persona.email == nil { throw .noRelayAddress(personaID) }
        return queue(type, personaID: personaID, groupID: groupID, at: now, events: &events)
    }

    /// Registers (or with nil removes) an app group's notification URL.
    mutating func setNotificationURL(_ url: String?, groupID: String, events: inout [DomainEvent]) throws(NotificationError) {
        guard directory.groups[groupID] != nil else { throw .unknownApp(groupID) }
        directory.setNotificationURL(url, group: groupID)
        events.append(.notificationURLChanged(groupID: groupID, url: url))
    }

    /// The pending deliveries due at `now`, marked as being sent (the outbox changes only when one is).
    mutating func takeDueNotifications(at now: Date) -> [NotificationDelivery] {
        guard outbox.hasDue(at: now) else { return [] }
        return outbox.takeDue(at: now)
    }

    /// Records an attempt's outcome; nil when the delivery is gone or was not being sent.
    mutating func recordNotificationAttempt(_ outcome: DeliveryOutcome, id: String, at now: Date, schedule: [TimeInterval],
                                            events: inout [DomainEvent]) -> NotificationDelivery? {
        guard let delivery = outbox.record(outcome, for: id, at: now, schedule: schedule) else { return nil }
        events.append(.notificationAttempted(id: id, outcome: outcome.summary, succeeded: outcome.succeeded, nextAttempt: delivery.nextAttempt))
        return delivery
    }

    /// Makes every undelivered notification due at `now`.
    mutating func retryNotifications(at now: Date, events: inout [DomainEvent]) -> Int {
        let count = outbox.retryUndelivered(at: now)
        events.append(.notificationsRetried(count: count))
        return count
    }

    @discardableResult
    private mutating func queue(_ type: NotificationType, personaID: String, groupID: String, at now: Date,
                                events: inout [DomainEvent]) -> NotificationDelivery? {
        guard let group = directory.groups[groupID], let persona = persona(personaID) else { return nil }
        guard let url = group.notificationURL else {
            events.append(.notificationUnrouted(type: type, personaID: personaID, groupID: groupID))
            return nil
        }
        let notification = serverNotification(type, persona: persona, group: group, at: now)
        let id = AppleIdentifiers.jwtID()
        let (delivery, dropped) = outbox.add(notification, url: url, id: id, now: now)
        if let dropped { events.append(.notificationDropped(id: dropped)) }
        events.append(.notificationQueued(id: id, type: type, personaID: personaID, groupID: groupID))
        return delivery
    }

    /// The notification of `type` about `persona` for `group` at `now`: its `sub` under the group's team, and
    /// the relay address for the email events.
    func serverNotification(_ type: NotificationType, persona: Persona, group: AppGroup, at now: Date) -> ServerNotification {
        let relay = type.isEmailEvent && persona.email != nil ? relayAddress(personaID: persona.id, teamID: group.teamID) : nil
        return ServerNotification(type: type, personaID: persona.id, groupID: group.primaryAppID,
                                  subject: subject(personaID: persona.id, teamID: group.teamID), eventTime: now, email: relay)
    }
}
