import ArgumentParser
import Foundation
import MockAppleID

/// `mock-appleid client-secret`: prints a `client_secret` JWT, for curl and quick experiments.
struct ClientSecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-secret",
        abstract: "Print an ES256 client_secret JWT (default: signed with the built-in developer key MOCKKEY001).")

    @Option(help: "The client_id (Services ID or bundle id): the secret's sub.") var clientID = "com.example.web"
    @Option(help: "Team ID: the secret's iss.") var teamID = BuiltInScenario.developerKey.teamID
    @Option(help: "Key ID: the secret's kid.") var keyID = BuiltInScenario.developerKey.keyID
    @Option(help: "The .p8 private key file (default: the built-in Keys/AuthKey_MOCKKEY001.p8).") var key: String?
    @Option(help: "Seconds until exp (Apple allows at most 15777000).") var lifetime: Int = 3600
    @Option(help: "iat as epoch seconds (default: now).") var issuedAt: Int?

    func run() throws {
        let pem: String
        if let key {
            do { pem = try String(contentsOfFile: key, encoding: .utf8) } catch { throw CommandError("cannot read --key \(key): \(error.localizedDescription)") }
        } else {
            pem = try BuiltInScenario.keyFile(named: BuiltInScenario.developerKey.fileName).orThrow(CommandError("the built-in developer key is missing"))
        }
        let signer: ClientSecret
        do { signer = try ClientSecret(teamID: teamID, keyID: keyID, privateKeyPEM: pem) } catch {
            throw CommandError("not a P-256 private key (.p8): \(error)")
        }
        let issued = issuedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? Date()
        print(try signer.make(clientID: clientID, issuedAt: issued, lifetime: TimeInterval(lifetime)))
    }
}
