import ArgumentParser
import Foundation
import MockAppleID

/// `mock-appleid keys generate`.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Make key files.", subcommands: [Generate.self])

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new signing key (rsa, ec) or a developer .p8 key (p8) into a folder.")

        @Option(help: "rsa (RS256 signing key), ec (ES256 signing key) or p8 (developer key).") var type: String = "rsa"
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
