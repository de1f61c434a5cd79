import ArgumentParser
import Foundation
import MockAppleID

/// `mock-appleid keys generate` (key files), and `keys list|add|activate|retire|shuffle` (a running server's key ring).
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Make key files; show and rotate a running server's signing keys.",
        subcommands: [Generate.self, List.self, Add.self, Activate.self, Retire.self, Shuffle.self])

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Write a new signing key (rsa, ec) or a developer .p8 key (p8) into a folder.")

        @Option(help: ArgumentHelp("One of \(KeyGenerator.Kind.allCases.map(\.rawValue).joined(separator: ", ")): an RS256 or ES256 signing key, or a developer .p8 key."))
        var type: String = "rsa"
        @Option(help: "Key id (default: a random 10-character id).") var kid: String?
        @Option(name: .shortAndLong, help: "Folder to write into (created if missing).") var output: String = "Keys"

        func run() throws {
            guard let kind = KeyGenerator.Kind(rawValue: type) else {
                throw ValidationError("--type must be one of \(KeyGenerator.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let key = try KeyGenerator.generate(kind, kid: kid)
            let folder = URL(fileURLWithPath: output, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent(key.fileName)
            guard !FileManager.default.fileExists(atPath: file.path) else {
                throw CommandError("\(file.path) exists; choose another --kid or folder")
            }
            try Data(key.pem.utf8).write(to: file)
            print("wrote \(file.path)")
            switch kind {
            case .rsa, .ec:
                print("scenario entry:\n  signingKeys:\n    - kid: \(key.kid)\n      alg: \(kind == .rsa ? "RS256" : "ES256")\n      file: \(file.path)")
            case .p8:
                print("scenario entry (under a team):\n    keys:\n      - kid: \(key.kid)\n        file: \(file.path)")
            }
        }
    }
}

/// A running server's key ring as `/__admin/keys` shows it.
struct KeyRingView: Decodable, CustomStringConvertible {
    let published: [String]
    let active: String
    let shuffled: Bool

    var description: String {
        "published: \(published.joined(separator: ", ")); signing with \(active); JWKS order \(shuffled ? "shuffled on every fetch" : "fixed")"
    }
}

/// `--at`: when a key change happens, on the server's mock clock.
struct KeyChangeTime: ParsableArguments {
    @Option(help: "Make the change at this mock-clock time (ISO 8601 or epoch seconds) instead of now.") var at: String?

    /// `{"at": …}` as the admin API takes it (epoch seconds as a number), or `{}` for now.
    var body: JSONValue {
        guard let at else { return .object([]) }
        return .object([("at", Double(at).map(JSONValue.double) ?? .string(at))])
    }

    /// What the command says after the server made the change (`scheduled` false) or scheduled it.
    func report(_ ring: KeyRingView, scheduled: Bool) -> String {
        guard scheduled, let at else { return ring.description }
        return "scheduled on the mock clock at \(at); now \(ring)"
    }
}

extension KeysCommand {
    /// Sends one key-ring call and prints the ring the server answers with.
    fileprivate static func change(_ server: ServerURLOption, _ path: String, _ body: JSONValue, at time: KeyChangeTime) async throws {
        let (ring, scheduled) = try await server.withClient { client in
            let answer = try await client.postScheduling(path, body)
            return (try client.decode(KeyRingView.self, answer.body, from: path), answer.scheduled)
        }
        print(time.report(ring, scheduled: scheduled))
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Show a running server's published keys and its signer.")
        @OptionGroup var server: ServerURLOption

        func run() async throws {
            print(try await server.withClient { client in try client.decode(KeyRingView.self, try await client.get("keys"), from: "keys") })
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Publish a new signing key on a running server (generated, or read from a PEM file).")
        @OptionGroup var server: ServerURLOption
        @Option(help: "Key id: 1 to 64 letters, digits, - or _.") var kid: String
        @Option(help: ArgumentHelp("One of \(JWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")).")) var alg = "RS256"
        @Option(help: "Private key PEM (RSA or P-256) to publish; without it the server generates one.") var file: String?
        @Flag(help: "Also make it the signer.") var activate = false
        @OptionGroup var time: KeyChangeTime

        func run() async throws {
            var body: [(String, JSONValue)] = [("kid", .string(kid)), ("alg", .string(alg))]
            if let file {
                do { body.append(("pem", .string(try String(contentsOfFile: file, encoding: .utf8)))) } catch {
                    throw CommandError("cannot read \(file): \(error.localizedDescription)")
                }
            } else {
                body.append(("generate", .bool(true)))
            }
            if activate { body.append(("activate", .bool(true))) }
            if let at = time.body["at"] { body.append(("at", at)) }
            try await KeysCommand.change(server, "keys", .object(body), at: time)
        }
    }

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "activate", abstract: "Make a published key the signer of new tokens on a running server.")
        @OptionGroup var change: PublishedKeyChange

        func run() async throws { try await change.send("activate") }
    }

    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retire",
            abstract: "Stop publishing a key on a running server (tokens it signed stop verifying).")
        @OptionGroup var change: PublishedKeyChange

        func run() async throws { try await change.send("retire") }
    }

    struct Shuffle: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "shuffle",
            abstract: "Turn shuffling of the JWKS key order on every fetch on or off, as Apple's order changes.")
        @Argument(help: "on or off.") var state: String
        @OptionGroup var server: ServerURLOption

        func validate() throws {
            guard ["on", "off"].contains(state) else { throw ValidationError("give on or off") }
        }

        func run() async throws {
            let body = JSONValue.object([("shuffled", .bool(state == "on"))])
            print(try await server.withClient { client in
                try client.decode(KeyRingView.self, try await client.put("keys/shuffle", body), from: "keys/shuffle")
            })
        }
    }

}

/// A change to one published key (`keys activate|retire KID [--at TIME] [--url URL]`).
struct PublishedKeyChange: ParsableArguments {
    @Argument(help: "The key id.") var kid: String
    @OptionGroup var server: ServerURLOption
    @OptionGroup var time: KeyChangeTime

    /// Key ids go into URL paths; they are letters, digits, `-` and `_`, so anything else is refused here.
    func validate() throws {
        guard SigningKey.isValidKeyID(kid) else { throw ValidationError("a key id is 1 to 64 letters, digits, - or _") }
    }

    /// `POST /__admin/keys/{kid}/{action}`, printing the key ring the server answers with.
    func send(_ action: String) async throws {
        try await KeysCommand.change(server, "keys/\(kid)/\(action)", time.body, at: time)
    }
}
