import ArgumentParser
import Foundation
import MockAppleIDServer

/// `mock-appleid tls init`: makes (or shows) the local certificate authority HTTPS uses.
struct TLSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls", abstract: "The local certificate authority behind `serve --https-port`.",
        subcommands: [Init.self, TrustTable.self])

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
}
