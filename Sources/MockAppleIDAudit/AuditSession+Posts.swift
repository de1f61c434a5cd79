import Crypto
import Foundation
import MockAppleID

/// What the relying party's servers receive without a browser: the identity token its iOS app posts to
/// its backend, and Apple's server-to-server notifications.
extension AuditSession {
    /// What the app posts, before the body template is filled in.
    struct NativeCredentialPost: Sendable {
        var identityToken: String
        var authorizationCode: String
        /// The raw nonce the app made (the token carries it, or its SHA-256).
        let rawNonce: String
        let subject: String
    }

    /// The app's bundle ID: as configured, else the first bundle ID of `webClientID`'s team.
    func bundleID(_ native: NativeBackend, webClientID: String) throws(AuditFailure) -> String {
        if let bundleID = native.bundleID { return bundleID }
        let directory = apple.provider.directory
        let team = directory.client(webClientID)?.teamID
        guard let client = directory.clients.first(where: { $0.kind == .native && $0.teamID == team }) else {
            throw AuditFailure("the scenario registers no bundle ID in the team of \(webClientID); give --bundle-id")
        }
        return client.id
    }

    /// What the app would post after signing `persona` in to `bundleID`: a fresh credential and nonce.
    func nativeCredential(_ native: NativeBackend, bundleID: String) throws(AuditFailure) -> NativeCredentialPost {
        let raw = AppleIdentifiers.jwtID()
        do {
            let request = NativeSignInRequest(personaID: configuration.persona, bundleID: bundleID, nonce: tokenNonce(native, raw: raw))
            let credential = try apple.provider.nativeSignIn(request)
            return NativeCredentialPost(identityToken: credential.identityToken, authorizationCode: credential.authorizationCode,
                                        rawNonce: raw, subject: credential.user)
        } catch {
            throw AuditFailure("Apple's side refused a native sign-in to \(bundleID): \(error.code.rawValue) (\(error.reason))")
        }
    }

    /// The nonce the token carries for `raw`, as the app passes it to Apple.
    func tokenNonce(_ native: NativeBackend, raw: String) -> String {
        native.hashesNonce ? Hex.encode(Array(SHA256.hash(data: Data(raw.utf8)))) : raw
    }

    /// Posts `credential` to the backend with the body template filled in; 2xx counts as signed in.
    func postNative(_ native: NativeBackend, _ credential: NativeCredentialPost) async -> AuditSession.Observation {
        let json = native.bodyTemplate.hasPrefix("{")
        let values = [credential.identityToken, credential.authorizationCode, credential.rawNonce, credential.subject]
        var body = native.bodyTemplate
        for (placeholder, value) in zip(NativeBackend.placeholders, values) {
            body = body.replacingOccurrences(of: placeholder, with: json ? String(JSONValue.string(value).serialized.dropFirst().dropLast())
                                                                           : FormParameters.encode(value))
        }
        return await post(body, json: json, to: native.url)
    }

    /// Posts a notification (`{"payload": jwt}`), then asks the signed-in page about `jar`.
    func postNotification(_ jwt: String, to url: URL, jar: inout BrowserCookieJar, needles: [String]) async -> AuditSession.Observation {
        let posted = await post(JSONValue.object([("payload", .string(jwt))]).serialized, json: true, to: url)
        let after = await checkSignedIn(&jar, needles: needles)
        return Observation(callback: posted.callback, signedIn: after, exchanges: [])
    }

    private func post(_ body: String, json: Bool, to url: URL) async -> AuditSession.Observation {
        var jar = BrowserCookieJar()
        let answer = await browser.navigate("POST", url, form: body, contentType: json ? "application/json" : "application/x-www-form-urlencoded",
                                            context: .sameSite, jar: &jar)
        let status = answer.finalStatus
        let accepted = status.map { (200...299).contains($0) } ?? false
        return Observation(callback: answer, signedIn: SignedInCheck(status: status, body: answer.finalBody, signedIn: accepted), exchanges: [])
    }
}
