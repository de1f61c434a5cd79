import ArgumentParser
import Foundation
import MockAppleID

/// `mock-appleid relay addresses|messages|sources|forwarding`: the private email relay of a running server.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay", abstract: "Relay addresses, inboxes, email sources and forwarding of a running server's private email relay.",
        subcommands: [Addresses.self, Messages.self, Sources.self, Forwarding.self])

    struct Addresses: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "addresses", abstract: "List the relay addresses in use.")
        @OptionGroup var server: ServerURLOption

        func run() async throws {
            let addresses = try await server.withClient { client in
                try client.decode(AddressesView.self, try await client.get("relay/addresses"), from: "relay/addresses").addresses
            }
            if addresses.isEmpty { print("no relay address in use: a persona hides their email at a first sign-in") }
            for address in addresses {
                print("\(address.address)  \(address.personaID)  \(address.teamID)  forwarding \(address.forwarding ? "on" : "off")  \(address.appGroups.joined(separator: ","))")
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
            abstract: "Replace, add to or remove from a team's registered email sources (domains and addresses the relay takes mail from).")
        @Argument(help: "The Team ID.") var team: String
        @Argument(help: "Domains (example.com) and addresses (news@example.com); none (without --add or --remove) removes them all.")
        var sources: [String] = []
        @Flag(help: "Add these to the sources registered.") var add = false
        @Flag(help: "Remove these from the sources registered (each must be).") var remove = false
        @OptionGroup var server: ServerURLOption

        func validate() throws {
            guard !team.isEmpty, team.allSatisfy({ $0.isLetter || $0.isNumber }) else { throw ValidationError("a Team ID is letters and digits") }
            if add, remove { throw ValidationError("give --add or --remove, not both") }
            if add || remove, sources.isEmpty { throw ValidationError("name the sources to \(add ? "add" : "remove")") }
        }

        func run() async throws {
            let path = "teams/\(team)/email-sources"
            let answer = try await server.withClient { client in
                guard add || remove else { return try await client.put(path, .object([("sources", .array(sources.map(JSONValue.string)))])) }
                var last = Data()
                for source in sources {
                    last = add ? try await client.post(path, .object([("source", .string(source))]))
                        : try await client.delete(path + "/" + (source.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? source))
                }
                return last
            }
            print(String(decoding: answer, as: UTF8.self))
        }
    }

    struct Forwarding: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forwarding",
            abstract: "Turn a persona's relay forwarding on or off, for one app's team (--app) or for every relay address of theirs.",
            discussion: "The app groups using an address whose forwarding changes get email-enabled or email-disabled.")
        @Argument(help: "The persona.") var persona: String
        @Argument(help: "on or off.") var state: String
        @Option(help: "A client id or primary App ID: only the persona's relay address under its team.") var app: String?
        @OptionGroup var server: ServerURLOption

        func validate() throws {
            guard ["on", "off"].contains(state) else { throw ValidationError("forwarding is on or off") }
        }

        func run() async throws {
            var members: [(String, JSONValue)] = [("forwarding", .bool(state == "on"))]
            if let app { members.append(("app", .string(app))) }
            let id = persona.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? persona
            let answer = try await server.withClient { try await $0.put("personas/\(id)/relay-forwarding", .object(members)) }
            let addresses = try JSONDecoder.admin.decode(ForwardingView.self, from: answer).addresses
            if addresses.isEmpty { print("\(persona) has no relay address in use yet; the setting holds for the addresses to come") }
            for address in addresses {
                print("\(address.address)  \(address.teamID)  forwarding \(address.forwarding ? "on" : "off")  \(address.appGroups.joined(separator: ","))")
            }
        }
    }
}

/// `GET /__admin/relay/addresses`.
private struct AddressesView: Decodable {
    let addresses: [RelayAddress]
}

/// `PUT /__admin/personas/{id}/relay-forwarding`.
private struct ForwardingView: Decodable {
    let addresses: [RelayAddress]
}

/// `GET /__admin/relay/messages`.
private struct MessagesView: Decodable {
    let messages: [RelayMessage]
}
