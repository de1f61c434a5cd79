import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    /// Server-to-server notifications: `GET /__admin/notifications` (every delivery with its attempts),
    /// `POST /__admin/notifications` (`{"type", "persona", "app"}`: send one now),
    /// `POST /__admin/notifications/retry` (every undelivered one, now), and
    /// `PUT /__admin/apps/{app}/notification-url` (`{"url": URL or null}`).
    func registerNotifications(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("notifications") { _, _ in try AdminResponse.json(NotificationsView(deliveries: provider.notificationDeliveries())) }
        admin.post("notifications") { request, _ in
            let body = try await body(request, allowing: ["type", "persona", "app"])
            guard let typeName = try body.text("type"), let type = NotificationType(name: typeName) else {
                throw AdminError.badRequest("type must be one of \(NotificationType.acceptedNames)")
            }
            guard let persona = try body.text("persona") else { throw AdminError.badRequest("persona is required") }
            guard let app = try body.text("app") else { throw AdminError.badRequest("app (a client id or primary App ID) is required") }
            guard let delivery = try provider.notify(type, personaID: persona, app: app) else {
                throw AdminError(status: .conflict, code: "no_notification_url",
                                 message: "the app group of \(app) has no notification URL; PUT /__admin/apps/\(app)/notification-url first")
            }
            return try AdminResponse.json(delivery, status: .created)
        }
        admin.post("notifications/retry") { _, _ in
            AdminResponse.json(JSONValue.object([("retried", .int(Int64(provider.retryNotifications())))]))
        }
        admin.put("apps/{app}/notification-url") { request, context in
            let app = try pathParameter("app", context)
            let body = try await body(request, allowing: ["url"])
            guard let value = body["url"] else { throw AdminError.badRequest("url is required (a URL, or null to remove it)") }
            let url: String? = value == .null ? nil : try body.text("url")
            let groupID = try provider.setNotificationURL(url, app: app)
            return AdminResponse.json(JSONValue.object([("app", .string(groupID)), ("notificationURL", url.map(JSONValue.string) ?? .null)]))
        }
    }
}

/// `GET /__admin/notifications`.
struct NotificationsView: Encodable {
    let deliveries: [NotificationDelivery]
}
