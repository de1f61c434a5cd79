import ArgumentParser
import Foundation
import MockAppleIDServer

/// `mock-appleid tls`: makes (or shows) the local certificate authority HTTPS uses, and issues certificates from it.
struct TLSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls", abstract: "The local certificate authority behind `serve --https-port`.",
        subcommands: [Init.self, Issue.self, TrustTable.self])

    struct TrustTable: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "trust-table",
            abstract: "Print how each runtime trusts the CA in the default folder (a Markdown table).")

        func run() { print(TrustInstructions.markdownTable) }
    }

    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Make the local CA in a folder (or keep the one there), write the bundle, and print how to trust it.")

        @Option(help: "Folder of the CA (default: $MOCK_APPLEID_TLS_DIR or ~/.mock-appleid/tls).") var dir: String?

        func run() throws {
            let directory = TLSOptions.absolute(dir ?? TLSOptions.defaultDirectory)
            let made: (authority: LocalCertificateAuthority, created: Bool)
            do { made = try LocalCertificateAuthority.loadOrCreate(in: directory) } catch { throw CommandError("\(error)") }
            let instructions = try TrustInstructions(authority: made.authority, httpsPort: 443)
            print((made.created ? "made a new certificate authority in \(directory)" : "kept the certificate authority in \(directory)")
                + "\n" + instructions.text)
        }
    }

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "issue",
            abstract: "Issue a certificate from the local CA for a relying party served over https on this machine.",
            discussion: """
            The CA may vouch only for localhost and Apple's two host names, so the certificate is for https://localhost:PORT. \
            `audit` trusts the CA in the default folder without --ca.
            """)

        @Option(help: "Folder of the CA (made when it holds none; default: $MOCK_APPLEID_TLS_DIR or ~/.mock-appleid/tls).") var dir: String?
        @Option(help: "Where to write the certificate chain (PEM, leaf first).") var cert: String
        @Option(help: "Where to write its private key (PEM, mode 0600).") var key: String
        @Option(help: "A host name the certificate is for; repeat for more (default: localhost).") var name: [String] = ["localhost"]

        func run() throws {
            let directory = TLSOptions.absolute(dir ?? TLSOptions.defaultDirectory)
            do {
                let issued = try LocalCertificateAuthority.loadOrCreate(in: directory).authority.issueCertificate(for: name)
                try issued.write(chainTo: cert, keyTo: key)
                print("issued a certificate for \(name.joined(separator: ", ")) until \(issued.leaf.notValidAfter) from the CA in \(directory): \(cert), key \(key)")
            } catch {
                throw CommandError("\(error)")
            }
        }
    }
}
