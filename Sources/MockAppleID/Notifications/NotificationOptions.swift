import Foundation

/// How server-to-server notifications are shaped and retried. The defaults follow payloads Apple
/// has sent; each knob plays a shape Apple's documentation shows instead.
public struct NotificationOptions: Sendable, Equatable, Codable {
    /// The type string of an account deletion: `account-delete` (sent, and used by most relying
    /// parties) or `account-deleted` (today's documentation).
    public enum AccountDeletedType: String, Sendable, Codable, CaseIterable {
        case accountDelete = "account-delete"
        case accountDeleted = "account-deleted"
    }

    /// `events` as a JSON-encoded string (sent) or a JSON object (the documentation's examples).
    public enum EventsEncoding: String, Sendable, Codable, CaseIterable { case string, object }

    /// `event_time` in milliseconds (sent) or seconds (the documentation).
    public enum EventTimeUnit: String, Sendable, Codable, CaseIterable { case milliseconds, seconds }

    /// `is_private_email` as the string `"true"` (sent) or a JSON boolean.
    public enum PrivateEmailStyle: String, Sendable, Codable, CaseIterable { case string, boolean }

    public var accountDeletedType = AccountDeletedType.accountDelete
    public var events = EventsEncoding.string
    public var eventTime = EventTimeUnit.milliseconds
    public var isPrivateEmail = PrivateEmailStyle.string
    /// Whether revoking a token at `/auth/revoke`, when that ends the consent (``ProviderSettings/refreshTokenRevocation``),
    /// also sends `consent-revoked`.
    public var onTokenRevocation = false
    /// Seconds on the mock clock between a failed attempt and the next: attempt n + 1 follows a failed
    /// attempt n after `retrySchedule[n - 1]`. After the last, a delivery waits for an admin retry.
    public var retrySchedule: [TimeInterval] = [5, 30, 120, 600, 3600, 21_600, 86_400]
    /// Real seconds an attempt may take before it counts as failed (a receiver that never answers).
    public var attemptTimeout: TimeInterval = 10

    /// The most retries a schedule may hold, and the longest wait in it.
    public static let retryLimit = 20
    public static let longestRetryWait: TimeInterval = 7 * 86_400
    /// The longest attempt timeout.
    public static let longestAttemptTimeout: TimeInterval = 120

    public init() {}

    /// `exp - iat` of a notification JWT, as observed.
    public static let payloadLifetime: TimeInterval = 86_400
}
