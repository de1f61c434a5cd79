import Foundation
import Hummingbird
import MockAppleID

extension AdminRoutes {
    func registerKeys(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("keys") { _, _ in try AdminResponse.json(KeysView(provider.keyRing())) }
        admin.post("keys") { request, _ in
            let body = try await body(request, allowing: ["kid", "alg", "pem", "generate", "activate", "at"])
            let key = try await offEventLoop { try newKey(body) }
            let later = try dateAhead(body.instant("at"))  // decided once, so the add and the activation go together
            try change(.add(key), scheduledFor: later)
            if try body.flag("activate") == true { try change(.activate(kid: key.kid), scheduledFor: later) }
            return try AdminResponse.json(KeysView(provider.keyRing()), status: later != nil ? .accepted : .created)
        }
        admin.post("keys/{kid}/activate") { request, context in
            let later = try dateAhead(await body(request, allowing: ["at"]).instant("at"))
            try change(.activate(kid: try pathParameter("kid", context)), scheduledFor: later)
            return try AdminResponse.json(KeysView(provider.keyRing()), status: later != nil ? .accepted : .ok)
        }
        admin.post("keys/{kid}/retire") { request, context in
            let later = try dateAhead(await body(request, allowing: ["at"]).instant("at"))
            try change(.retire(kid: try pathParameter("kid", context)), scheduledFor: later)
            return try AdminResponse.json(KeysView(provider.keyRing()), status: later != nil ? .accepted : .ok)
        }
        admin.put("keys/shuffle") { request, _ in
            guard let shuffled = try await body(request, allowing: ["shuffled"]).flag("shuffled") else { throw AdminError.badRequest("shuffled must be true or false") }
            provider.setJWKSShuffled(shuffled)
            return try AdminResponse.json(KeysView(provider.keyRing()))
        }
    }

    /// Schedules a key change on the mock clock for `date`, or with nil makes it now.
    private func change(_ change: KeyChange, scheduledFor date: Date?) throws(KeyRing.Failure) {
        if let date {
            provider.scheduleKeyChange(change, at: date)
            return
        }
        try provider.changeKeys(change)
    }

    /// `{"kid": …, "pem": RSA or P-256 private key}` or `{"kid": …, "generate": true}` (RSA 2048); `alg` RS256 by default.
    private func newKey(_ body: JSONValue) throws(AdminError) -> SigningKey {
        guard let kid = try body.text("kid"), SigningKey.isValidKeyID(kid) else {
            throw AdminError.badRequest("kid must be 1 to 64 letters, digits, - or _")
        }
        let algorithm = try body.text("alg").map { (text: String) throws(AdminError) -> JWSAlgorithm in
            guard let alg = JWSAlgorithm(rawValue: text) else { throw AdminError.badRequest("alg must be RS256 or ES256") }
            return alg
        } ?? .rs256
        let pem: String
        switch (try body.text("pem"), try body.flag("generate")) {
        case let (text?, nil), let (text?, false?):
            pem = text
        case (nil, true?):
            do { pem = try KeyGenerator.generate(algorithm == .rs256 ? .rsa : .ec, kid: kid).pem } catch {
                throw AdminError(status: .internalServerError, code: "key_generation_failed", message: "\(error)")
            }
        default:
            throw AdminError.badRequest("give pem (a private key) or generate: true")
        }
        do { return try SigningKey(kid: kid, algorithm: algorithm, pem: pem) } catch {
            throw AdminError.badRequest("not a usable \(algorithm.rawValue) private key PEM: \(error)")
        }
    }
}
