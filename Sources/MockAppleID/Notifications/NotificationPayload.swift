import Foundation

/// The JWT claims of a server-to-server notification, shaped as ``NotificationOptions`` say:
/// `iss`, `aud` (the primary App ID), `iat`, `exp` (a day later), `jti` (the delivery id) and
/// `events` (`type`, `sub`, `event_time`, and `email` with `is_private_email` for the email events).
enum NotificationPayload {
    static func claims(for delivery: NotificationDelivery, issuer: String, issuedAt now: Date, options: NotificationOptions) -> JSONValue {
        claims(for: delivery.notification, id: delivery.id, issuer: issuer, issuedAt: now, options: options)
    }

    /// The claims of `notification` under the `jti` `id`.
    static func claims(for notification: ServerNotification, id: String, issuer: String, issuedAt now: Date,
                       options: NotificationOptions) -> JSONValue {
        let eventSeconds = notification.eventTime.timeIntervalSince1970
        var event: [(String, JSONValue)] = [
            ("type", .string(notification.type.wireName(options))),
            ("sub", .string(notification.subject)),
            ("event_time", .int(TimeRange.wholeSeconds(options.eventTime == .milliseconds ? eventSeconds * 1000 : eventSeconds))),
        ]
        if let email = notification.email {
            event.append(("email", .string(email)))
            event.append(("is_private_email", options.isPrivateEmail == .string ? .string("true") : .bool(true)))
        }
        let iat = TimeRange.wholeSeconds(now.timeIntervalSince1970)
        return .object([
            ("iss", .string(issuer)),
            ("aud", .string(notification.groupID)),
            ("iat", .int(iat)),
            ("exp", .int(iat &+ TimeRange.wholeSeconds(NotificationOptions.payloadLifetime))),
            ("jti", .string(id)),
            ("events", options.events == .string ? .string(JSONValue.object(event).serialized) : .object(event)),
        ])
    }
}
