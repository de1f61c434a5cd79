import ArgumentParser
import Foundation
import MockAppleID

/// `mock-appleid native-sign-in`: what an iOS or macOS app's `ASAuthorizationAppleIDCredential` holds,
/// minted by a running server.
struct NativeSignInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "native-sign-in",
        abstract: "Sign a persona in to an app as iOS or macOS would, on a running server; prints the credential as JSON.",
        discussion: """
            The credential holds identityToken (aud = the bundle id), authorizationCode (redeemable once at \
            /auth/token with client_id = the bundle id and no redirect_uri), user, email, fullName (first \
            authorization only), realUserStatus and firstAuthorization.
            """)

    @OptionGroup var server: ServerURLOption
    @Option(help: "The persona's id in the server's scenario.") var persona: String
    @Option(name: .customLong("bundle-id"), help: "The app's bundle id (a registered primary App ID).") var bundleID: String
    @Option(help: "The nonce the app passed (put in the identity token as given).") var nonce: String?
    @Option(help: "Requested scopes: name, email, or both comma-separated; an empty value asks for none.") var scopes = "name,email"
    @Option(help: ArgumentHelp("\(EmailChoice.allCases.map(\.rawValue).joined(separator: " or ")) the email (default: the persona's choice)."))
    var email: String?
    @Option(help: ArgumentHelp("Override real_user_status: \(RealUserStatus.allCases.map { "\($0.rawValue)" }.joined(separator: ", ")) or a name (\(RealUserStatus.allCases.map(\.name).joined(separator: ", "))).")) var realUserStatus: String?

    func run() async throws {
        var body: [(String, JSONValue)] = [
            ("persona", .string(persona)), ("bundleID", .string(bundleID)),
            ("scopes", .array(scopes.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) })),
        ]
        if let nonce { body.append(("nonce", .string(nonce))) }
        if let email { body.append(("emailChoice", .string(email))) }
        if let realUserStatus { body.append(("realUserStatus", .string(realUserStatus))) }
        let answer = try await server.withClient { try await $0.post("native-sign-in", .object(body)) }
        print(String(decoding: answer, as: UTF8.self))
    }
}
