import ArgumentParser
import Foundation
import MockAppleID

/// `mock-appleid relay addresses|messages|sources`: the private email relay of a running server.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay", abstract: "Relay addresses, inboxes and email sources of a running server's private email relay.",
        subcommands: [Addresses.self, Messages.self, Sources.self])

    struct Addresses: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "addresses", abstract: "List the relay addresses in use.")
        @OptionGroup var server: ServerURLOption

        func run() async throws {
            let addresses = try await server.withClient { client in
                try client.decode(AddressesView.self, try await client.get("relay/addresses"), from: "relay/addresses").addresses
            }
            if addresses.isEmpty { print("no relay address in use: a persona hides their email at a first sign-in") }
            for address in addresses {
                print("\(address.address)  \(address.personaID)  \(address.teamID)  forwarding \(address.forwarding ? "on" : "off")")
            }
        }
    }

    struct Messages: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "messages", abstract: "List the messages the relay delivered, oldest first.")
        @Option(help: "Only this persona's.") var persona: String?
        @Option(help: "Only those to this relay address.") var address: String?
        @Flag(help: "Print the admin API's JSON.") var json = false
        @OptionGroup var server: ServerURLOption

        func run() async throws {
            var query = URLComponents()
            query.queryItems = [("persona", persona), ("address", address)].compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
            let path = "relay/messages" + (query.percentEncodedQuery.map { "?\($0)" } ?? "")
            let (data, messages) = try await server.withClient { client in
                let data = try await client.get(path)
                return (data, json ? [] : try client.decode(MessagesView.self, data, from: "relay/messages").messages)
            }
            if json { return print(String(decoding: data, as: UTF8.self)) }
            for message in messages {
                let sender = message.envelopeFrom.isEmpty ? "<>" : message.envelopeFrom
                print("\(message.id) \(sender) → \(message.relayAddress) (\(message.personaID)): \(message.subject ?? "(no subject)")"
                      + (message.forwarded.map { "; forwarded: \($0)" } ?? ""))
            }
        }
    }

    struct Sources: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sources",
            abstract: "Replace a team's registered email sources (domains and addresses the relay takes mail from).")
        @Argument(help: "The Team ID.") var team: String
        @Argument(help: "Domains (example.com) and addresses (news@example.com); none removes them all.") var sources: [String] = []
        @OptionGroup var server: ServerURLOption

        func validate() throws {
            guard !team.isEmpty, team.allSatisfy({ $0.isLetter || $0.isNumber }) else { throw ValidationError("a Team ID is letters and digits") }
        }

        func run() async throws {
            let body = JSONValue.object([("sources", .array(sources.map(JSONValue.string)))])
            let answer = try await server.withClient { try await $0.put("teams/\(team)/email-sources", body) }
            print(String(decoding: answer, as: UTF8.self))
        }
    }
}

/// `GET /__admin/relay/addresses`.
private struct AddressesView: Decodable {
    let addresses: [RelayAddress]
}

/// `GET /__admin/relay/messages`.
private struct MessagesView: Decodable {
    let messages: [RelayMessage]
}
