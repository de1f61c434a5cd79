import Foundation

/// The events Apple reports to an app group's notification URL.
public enum NotificationType: String, Sendable, Codable, CaseIterable {
    /// The user turned off forwarding for their private relay address.
    case emailDisabled = "email-disabled"
    /// The user turned forwarding back on.
    case emailEnabled = "email-enabled"
    /// The user stopped using Sign in with Apple with the app group; its tokens are void.
    case consentRevoked = "consent-revoked"
    /// The user deleted their Apple Account (spelled as ``NotificationOptions/accountDeletedType`` says).
    case accountDeleted = "account-delete"

    /// The `type` string sent.
    func wireName(_ options: NotificationOptions) -> String {
        self == .accountDeleted ? options.accountDeletedType.rawValue : rawValue
    }

    /// Parses the names this product accepts: every wire spelling (both account-deletion ones).
    public init?(name: String) {
        if name == NotificationOptions.AccountDeletedType.accountDeleted.rawValue {
            self = .accountDeleted
        } else {
            self.init(rawValue: name)
        }
    }

    /// Every accepted name, for error messages.
    public static let acceptedNames = (allCases.map(\.rawValue) + [NotificationOptions.AccountDeletedType.accountDeleted.rawValue])
        .joined(separator: ", ")

    /// Whether the event is about the relay address (and carries `email` and `is_private_email`).
    var isEmailEvent: Bool { self == .emailDisabled || self == .emailEnabled }
}

/// One server-to-server notification: what happened to whom, for which app group.
public struct ServerNotification: Sendable, Equatable, Codable {
    public let type: NotificationType
    public let personaID: String
    /// The primary App ID (the JWT's `aud`).
    public let groupID: String
    /// The persona's `sub` under the group's team.
    public let subject: String
    /// When it happened, on the mock clock (`event_time`).
    public let eventTime: Date
    /// The relay address, for the email events.
    public let email: String?
}

/// A notification on its way to an app group's URL, with every attempt so far.
public struct NotificationDelivery: Sendable, Equatable, Codable, Identifiable {
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Waiting for its next attempt (at ``NotificationDelivery/nextAttempt``).
        case pending
        /// An attempt is under way.
        case sending
        /// The receiver answered 2xx.
        case delivered
        /// Every scheduled attempt failed; an admin retry sends it again.
        case failed
    }

    /// The JWT's `jti`, the same on every attempt, so a receiver can drop duplicates.
    public let id: String
    public let notification: ServerNotification
    public let url: String
    public internal(set) var status: Status
    public internal(set) var attempts: [DeliveryAttempt]
    /// When the next attempt is due on the mock clock (pending deliveries only).
    public internal(set) var nextAttempt: Date?
    /// Failed attempts since the first one or the last admin retry: the place in the retry schedule.
    public internal(set) var failuresInARow: Int
}

/// One try at posting a notification.
public struct DeliveryAttempt: Sendable, Equatable, Codable {
    /// When it was made, on the mock clock.
    public let time: Date
    /// `HTTP 200`, `HTTP 503`, `timed out after 10 s`, `connection refused`, …
    public let outcome: String
    public let succeeded: Bool
}

/// What became of an attempt, as the sender saw it.
public enum DeliveryOutcome: Sendable, Equatable {
    /// The receiver answered with this status.
    case answered(status: Int)
    /// No answer: refused, timed out, reset (in words).
    case unreachable(String)

    /// A 2xx answer.
    public var succeeded: Bool {
        if case let .answered(status) = self { return (200..<300).contains(status) }
        return false
    }

    /// `HTTP 503`, or the reason in words (at most 200 characters).
    public var summary: String {
        switch self {
        case let .answered(status): return "HTTP \(status)"
        case let .unreachable(reason): return String(reason.prefix(200))
        }
    }
}
