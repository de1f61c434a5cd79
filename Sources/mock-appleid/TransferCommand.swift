import ArgumentParser
import Foundation
import MockAppleID

/// `mock-appleid transfer APP --to TEAM [--at TIME]` and `transfer list`: app transfers on a running server.
struct TransferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer", abstract: "Move an app group to another team on a running server, or list the transfers.",
        subcommands: [Move.self, List.self], defaultSubcommand: Move.self)

    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "app", abstract: "Move an app group (and its clients) to another team, now or at a mock-clock time.")
        @Argument(help: "A client id or primary App ID of the app group.") var app: String
        @Option(help: "The recipient Team ID.") var to: String
        @OptionGroup var time: KeyChangeTime
        @OptionGroup var server: ServerURLOption

        func validate() throws {
            guard app.allSatisfy({ $0.isLetter || $0.isNumber || "-._".contains($0) }) else {
                throw ValidationError("an app id is letters, digits, -, . and _")
            }
        }

        func run() async throws {
            var body = time.body
            if case let .object(members) = body { body = .object([("team", .string(to))] + members) }
            let answer = try await server.withClient { try await $0.post("apps/\(app)/transfer", body) }
            print(String(decoding: answer, as: UTF8.self))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the transfers made so far.")
        @OptionGroup var server: ServerURLOption

        func run() async throws {
            let answer = try await server.withClient { try await $0.get("transfers") }
            print(String(decoding: answer, as: UTF8.self))
        }
    }
}
