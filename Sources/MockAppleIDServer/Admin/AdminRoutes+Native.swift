import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    /// `POST /__admin/native-sign-in`: what `ASAuthorizationAppleIDCredential` would hold.
    func registerNativeSignIn(on admin: RouterGroup<BasicRequestContext>) {
        admin.post("native-sign-in") { request, _ in
            let native = try NativeSignInRequest(adminJSON: try await body(request, allowing: NativeSignInRequest.adminFields))
            let credential: NativeCredential
            do throws(AppleError) { credential = try provider.nativeSignIn(native, origin: RequestOrigin(channel: .admin)) } catch {
                throw AdminError(status: .badRequest, code: error.code.rawValue, message: error.reason)
            }
            return try AdminResponse.json(credential)
        }
    }
}

extension NativeSignInRequest {
    /// `{"persona", "bundleID", "nonce"?, "scopes"?: ["name","email"], "emailChoice"?, "realUserStatus"?: 0|1|2|name}`.
    static let adminFields = ["persona", "bundleID", "nonce", "scopes", "emailChoice", "realUserStatus"]

    init(adminJSON body: JSONValue) throws(AdminError) {
        guard let persona = try body.text("persona"), !persona.isEmpty else { throw AdminError.badRequest("persona is required") }
        guard let bundleID = try body.text("bundleID"), !bundleID.isEmpty else { throw AdminError.badRequest("bundleID is required") }
        var scopes: [Scope] = [.name, .email]
        if let value = body["scopes"] {
            guard case let .array(items) = value else { throw AdminError.badRequest("scopes must be a list of name, email") }
            scopes = []
            for item in items {
                guard let scope = item.stringValue.flatMap(Scope.init(rawValue:)) else { throw AdminError.badRequest("scopes must be a list of name, email") }
                if !scopes.contains(scope) { scopes.append(scope) }
            }
        }
        let emailChoice = try body.text("emailChoice").map { (text: String) throws(AdminError) -> EmailChoice in
            guard let choice = EmailChoice(rawValue: text) else { throw AdminError.badRequest("emailChoice must be share or hide") }
            return choice
        }
        var status: RealUserStatus?
        if let value = body["realUserStatus"] {
            let text = value.int64Value.map(String.init) ?? value.stringValue ?? ""
            guard let parsed = RealUserStatus(name: text) else {
                throw AdminError.badRequest("realUserStatus must be 0, 1, 2, unsupported, unknown or likelyReal")
            }
            status = parsed
        }
        self.init(personaID: persona, bundleID: bundleID, nonce: try body.text("nonce"), scopes: scopes.sorted(),
                  emailChoice: emailChoice, realUserStatus: status)
    }
}
