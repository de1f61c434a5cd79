import ArgumentParser
import Foundation
import MockAppleID

/// `mock-appleid notifications send|list|retry|url`: server-to-server notifications on a running server.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications", abstract: "Send, list and retry server-to-server notifications on a running server.",
        subcommands: [Send.self, List.self, Retry.self, URLCommand.self])

    struct Send: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "send",
            abstract: "Send a notification about a persona to an app group now.")
        @Argument(help: ArgumentHelp("The event type: \(NotificationType.acceptedNames).")) var type: String
        @Option(help: "The persona's id.") var persona: String
        @Option(help: "A client id or primary App ID of the app group.") var app: String
        @OptionGroup var server: ServerURLOption

        func run() async throws {
            let body = JSONValue.object([("type", .string(type)), ("persona", .string(persona)), ("app", .string(app))])
            let delivery = try await server.withClient { client in
                try client.decode(NotificationDelivery.self, try await client.post("notifications", body), from: "notifications")
            }
            print("\(delivery.notification.type.rawValue) notification \(delivery.id) queued for \(delivery.url)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List every notification kept, with its attempts.")
        @OptionGroup var server: ServerURLOption

        func run() async throws {
            let deliveries = try await server.withClient { client in
                try client.decode(DeliveriesView.self, try await client.get("notifications"), from: "notifications").deliveries
            }
            for delivery in deliveries {
                let attempts = delivery.attempts.map(\.outcome).joined(separator: ", ")
                print("\(delivery.id) \(delivery.notification.type.rawValue) \(delivery.notification.personaID) → \(delivery.url): \(delivery.status.rawValue)\(attempts.isEmpty ? "" : " (\(attempts))")")
            }
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "retry", abstract: "Make every undelivered notification due now.")
        @OptionGroup var server: ServerURLOption

        func run() async throws {
            let answer = try await server.withClient { try await $0.post("notifications/retry") }
            print("\(JSONValue.parse(answer)?["retried"]?.int64Value ?? 0) notification(s) due again now")
        }
    }

    struct URLCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "url", abstract: "Register an app group's notification URL (or remove it with --remove).")
        @Argument(help: "A client id or primary App ID of the app group.") var app: String
        @Argument(help: "The URL notifications are posted to.") var notificationURL: String?
        @Flag(help: "Remove the URL: no notifications for the group.") var remove = false
        @OptionGroup var server: ServerURLOption

        func validate() throws {
            if remove == (notificationURL != nil) { throw ValidationError("give a URL, or --remove") }
            guard app.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) }) else {
                throw ValidationError("an app id is letters, digits, -, . and _")
            }
        }

        func run() async throws {
            let body = JSONValue.object([("url", notificationURL.map(JSONValue.string) ?? .null)])
            let answer = try await server.withClient { try await $0.put("apps/\(app)/notification-url", body) }
            print(String(decoding: answer, as: UTF8.self))
        }
    }
}

/// `GET /__admin/notifications`.
struct DeliveriesView: Decodable {
    let deliveries: [NotificationDelivery]
}
