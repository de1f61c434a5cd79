import Crypto
import CryptoExtras
import Foundation
import MockAppleID
@testable import MockAppleIDAudit
import Testing

@Suite("The audit's cases, forgeries and reports")
struct AuditPiecesTests {
    @Test("cases are chosen by id and by prefix, in their own order; a pattern that matches nothing is named")
    func selection() {
        let chosen = AuditCase.selected(by: ["callback.replay", "keys.*", "nothing.here"])
        #expect(chosen.cases == [.callbackReplay, .keysRotation, .keysUnreachable])
        #expect(chosen.unmatched == ["nothing.here"])
        #expect(Set(AuditCase.allCases.map(\.id)).count == AuditCase.allCases.count)
        #expect(AuditCase.selected(by: ["id_token.*"]).cases.count == 34)
        #expect(AuditCase.selected(by: ["id_token.*"]).cases.allSatisfy { $0.dependsOnFrontChannelUse })
        #expect(AuditCase.allCases.suffix(2) == [.keysRotation, .keysUnreachable])
    }

    @Test("forged tokens are broken exactly as their case says")
    func forgeries() throws {
        let scenario = try BuiltInScenario.load()
        let provider = try AppleIDProvider(scenario: scenario)
        let key = provider.keyRing().active
        let forgery = TokenForgery(appleKey: key)
        let claims = JSONValue.object([("iss", .string("https://appleid.apple.com")), ("sub", .string("x"))])

        let honest = try CompactJWS(compact: try forgery.signed(claims))
        #expect(key.isValidSignature(honest.signature, for: honest.signingInput))
        let broken = try CompactJWS(compact: try forgery.badSignature(claims))
        #expect(!key.isValidSignature(broken.signature, for: broken.signingInput))
        let foreign = try CompactJWS(compact: try forgery.foreign(claims))
        #expect(foreign.header["kid"]?.stringValue == key.kid)
        #expect(!key.isValidSignature(foreign.signature, for: foreign.signingInput))
        #expect(try CompactJWS(compact: try forgery.unknownKid(claims)).header["kid"]?.stringValue == AppleIDProvider.unknownKID)
        #expect(provider.keyRing().key(withID: AppleIDProvider.unknownKID) == nil)

        let none = forgery.algNone(claims).split(separator: ".", omittingEmptySubsequences: false)
        #expect(none.count == 3 && none[2].isEmpty)
        #expect(JSONValue.parse(try #require(Base64URL.decode(none[0])))?["alg"]?.stringValue == "none")
        let mixedCase = try forgery.algNoneMixedCase(claims).split(separator: ".", omittingEmptySubsequences: false)
        #expect(mixedCase.count == 3 && mixedCase[2].isEmpty)
        #expect(JSONValue.parse(try #require(Base64URL.decode(mixedCase[0])))?["alg"]?.stringValue == "NoNe")
        // `none` followed by a signature part that Apple's key does not verify.
        let noneSigned = try CompactJWS(compact: try forgery.algNoneSigned(claims))
        #expect(noneSigned.header["alg"]?.stringValue == "none" && noneSigned.header["kid"]?.stringValue == key.kid)
        #expect(!noneSigned.signature.isEmpty && !key.isValidSignature(noneSigned.signature, for: noneSigned.signingInput))
        // Signed by the key the header carries, which is not Apple's, under Apple's kid.
        let carrying = try CompactJWS(compact: try forgery.carryingItsOwnKey(claims))
        #expect(carrying.header["kid"]?.stringValue == key.kid && carrying.header["alg"]?.stringValue == "RS256")
        let carried = try #require(carrying.header["jwk"])
        #expect(carried["kty"]?.stringValue == "RSA" && carried["n"] != key.publicJWK["n"] && carried["kid"] == nil)
        #expect(!key.isValidSignature(carrying.signature, for: carrying.signingInput))
        let carriedKey = try _RSA.Signing.PublicKey(n: try #require(Base64URL.decode(carried["n"]?.stringValue ?? "")),
                                                    e: try #require(Base64URL.decode(carried["e"]?.stringValue ?? "")))
        #expect(carriedKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: carrying.signature),
                                            for: carrying.signingInput, padding: .insecurePKCS1v1_5))

        // HS256 keyed with the PEM text of Apple's public key, as a careless verifier would use it.
        let keyFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Keys/signing-\(key.kid).pem")
        let publicPEM = try _RSA.Signing.PrivateKey(pemRepresentation: String(contentsOf: keyFile, encoding: .utf8)).publicKey.pemRepresentation
        let hs256 = forgery.hs256WithPublicKey(claims).split(separator: ".")
        #expect(JSONValue.parse(try #require(Base64URL.decode(hs256[0])))?["alg"]?.stringValue == "HS256")
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(hs256[0]).\(hs256[1])".utf8), using: SymmetricKey(data: Data((publicPEM + "\n").utf8)))
        #expect(Base64URL.decode(hs256[2]) == Data(mac))
        #expect(claims.setting("sub", nil) == .object([("iss", .string("https://appleid.apple.com"))]))
    }

    /// What a learning step found at a relying party whose sign-in starts at /login, whose signed-in page is /me
    /// and shows the person's sub, and which ends a cancelled sign-in on a 400 page at /cb.
    static let learned: Learned = {
        let configuration = AuditConfiguration(startURL: URL(string: "http://rp/login")!, signedInURL: URL(string: "http://rp/me")!)
        let cancelled = AuditBrowser.Navigation(hops: [.init(method: "POST", url: URL(string: "http://rp/cb")!, status: 400, withheld: [])],
                                                end: .page(status: 400, body: ""))
        return Learned(request: FormParameters([]), shows: .subject, exchangesCode: true, anonymousPageAnswers2xx: false, showsEmail: true,
                       endings: .init(configuration: configuration, refusals: [cancelled]), frontChannel: .validated, frontChannelEvidence: [],
                       summary: [])
    }()

    /// A case played: the callback's one hop (or its redirect to `endsAt`) and the signed-in page's answer.
    static func played(signedIn: Bool, status: Int = 303, exchanges: [Int] = [], end: AuditBrowser.End? = nil, body: String = "",
                       endsAt: String? = nil, adjust: (inout CaseRunner.Played) -> Void = { _ in }) -> CaseRunner.Outcome {
        var hops = [AuditBrowser.Hop(method: "POST", url: URL(string: "http://rp/cb")!, status: endsAt == nil ? status : 303, withheld: [])]
        if let endsAt { hops.append(.init(method: "GET", url: URL(string: "http://rp" + endsAt)!, status: status, withheld: [])) }
        let navigation = AuditBrowser.Navigation(hops: hops, end: end ?? .page(status: status, body: "<p>refused &quot;x&quot;</p>"))
        let observation = AuditSession.Observation(callback: navigation, signedIn: .init(status: signedIn ? 200 : 401, body: body, signedIn: signedIn),
                                                   exchanges: exchanges)
        var played = CaseRunner.Played(observation: observation, exchangeIsCaution: true)
        adjust(&played)
        return .played(played)
    }

    @Test("the judge: must-refuse, must-accept, should-refuse and answered-cleanly cases")
    func verdicts() {
        let judge = Judge(learned: Self.learned)
        #expect(judge.judge(.idTokenAlgNone, Self.played(signedIn: true)).verdict == .fail)
        #expect(judge.judge(.idTokenAlgNone, Self.played(signedIn: false)).verdict == .pass)
        // A code exchanged after a broken front-channel token, then a refusal: it should have checked the token first.
        #expect(judge.judge(.idTokenAlgNone, Self.played(signedIn: false, status: 400, exchanges: [200])).verdict == .warn)
        #expect(judge.judge(.tokenIDTokenSignature, Self.played(signedIn: true)).verdict == .warn)
        #expect(judge.judge(.tokenSlow, Self.played(signedIn: false, end: .timedOut)).verdict == .warn)
        #expect(judge.judge(.tokenSlow, Self.played(signedIn: false, status: 400)).verdict == .pass)
        #expect(judge.judge(.callbackCancel, Self.played(signedIn: false, end: .failed("connection reset"))).verdict == .warn)
        #expect(judge.judge(.callbackReplay, .judged(.warn, "why")).verdict == .warn)
        #expect(judge.judge(.callbackNoEmail, Self.played(signedIn: false, status: 400)).verdict == .fail)
        let refused = judge.judge(.callbackNoEmail, Self.played(signedIn: false, status: 400))
        #expect(refused.evidence.contains("callback page: refused \"x\""))
        #expect(judge.judge(.callbackNoEmail, .skipped("why")).verdict == .skip)
        // Notifications: the signed-in check after the posting tells whether the relying party acted on it.
        #expect(judge.judge(.notificationsForged, Self.played(signedIn: false, status: 200)).verdict == .fail)
        #expect(judge.judge(.notificationsForged, Self.played(signedIn: true, status: 200)).verdict == .warn)
        #expect(judge.judge(.notificationsForged, Self.played(signedIn: true, status: 400)).verdict == .pass)
        #expect(judge.judge(.notificationsReplay, Self.played(signedIn: true, status: 200)).verdict == .pass)
        #expect(judge.judge(.notificationsConsentRevoked, Self.played(signedIn: false, status: 200)).verdict == .pass)
        #expect(judge.judge(.notificationsConsentRevoked, Self.played(signedIn: true, status: 200)).verdict == .warn)
        #expect(judge.judge(.notificationsAccountDelete, Self.played(signedIn: false, status: 500)).verdict == .warn)
    }

    @Test("the judge tells an unhandled 500 from a gateway's 502-504, which is clean only when Apple's side failed")
    func serverErrors() {
        let judge = Judge(learned: Self.learned)
        let unhandled = judge.judge(.tokenServerError, Self.played(signedIn: false, status: 500))
        #expect(unhandled.verdict == .warn && unhandled.seen.contains("500 (an unhandled error)"))
        let gateway = judge.judge(.tokenServerError, Self.played(signedIn: false, status: 503))
        #expect(gateway.verdict == .pass && gateway.seen == "did not sign in, and answered 503 as a gateway should")
        #expect(judge.judge(.tokenSlow, Self.played(signedIn: false, status: 504)).verdict == .pass)
        let cancel = judge.judge(.callbackCancel, Self.played(signedIn: false, status: 502))
        #expect(cancel.verdict == .warn && cancel.seen.contains("502 (a gateway's answer, though Apple's side was up)"))
        #expect(judge.judge(.tokenInvalidGrant, Self.played(signedIn: false, status: 504)).verdict == .warn)
    }

    @Test("a sign-in that stops on another 2xx page is inconclusive, not a refusal; a refusal page or the start page is a refusal")
    func unfinishedSignIns() {
        let judge = Judge(learned: Self.learned)
        let signUp = judge.judge(.tokenIDTokenSubjectMismatch, Self.played(signedIn: false, status: 200, endsAt: "/signup"))
        #expect(signUp.verdict == .inconclusive && signUp.seen.contains("stopped at a 200 page at /signup"))
        #expect(judge.judge(.callbackNoEmail, Self.played(signedIn: false, status: 200, endsAt: "/signup")).verdict == .inconclusive)
        #expect(judge.judge(.tokenSlow, Self.played(signedIn: false, status: 200, endsAt: "/signup")).verdict == .inconclusive)
        #expect(judge.judge(.tokenIDTokenSubjectMismatch, Self.played(signedIn: false, status: 200, endsAt: "/login")).verdict == .pass)
        // The cancelled sign-in ended on a 400 at /cb: a 200 there is another page.
        #expect(judge.judge(.tokenIDTokenSubjectMismatch, Self.played(signedIn: false, status: 200, endsAt: "/cb")).verdict == .inconclusive)
        #expect(judge.judge(.tokenIDTokenSubjectMismatch, Self.played(signedIn: false, status: 200, endsAt: "/")).verdict == .pass)
        #expect(judge.judge(.tokenIDTokenSubjectMismatch, Self.played(signedIn: false, status: 401, endsAt: "/signup")).verdict == .pass)
    }

    @Test("the judge by consequence: which person was signed in, the user JSON's email, a refusal Apple's side had to make")
    func consequences() {
        let judge = Judge(learned: Self.learned)
        let marks = { (played: inout CaseRunner.Played) in (played.brokenTokensMark, played.honestTokensMark) = ("forged-sub", "real-sub") }
        #expect(judge.judge(.idTokenSubjectMismatch, Self.played(signedIn: true, body: "forged-sub", adjust: marks)).verdict == .fail)
        #expect(judge.judge(.idTokenSubjectMismatch, Self.played(signedIn: true, body: "real-sub", adjust: marks)).verdict == .warn)
        #expect(judge.judge(.idTokenSubjectMismatch, Self.played(signedIn: true) { $0.whichTokenUntold = true }).verdict == .inconclusive)
        let emailOnly = { (shows: Bool) in { (played: inout CaseRunner.Played) in (played.forbiddenEmail, played.pageShowsEmails) = ("user@x", shows) } }
        let taken = judge.judge(.callbackUserEmailOnly, Self.played(signedIn: true, body: "user@x", adjust: emailOnly(true)))
        #expect(taken.verdict == .fail && taken.seen.contains("though the token has none"))
        #expect(judge.judge(.callbackUserEmailOnly, Self.played(signedIn: true, body: "None", adjust: emailOnly(true))).verdict == .pass)
        #expect(judge.judge(.callbackUserEmailOnly, Self.played(signedIn: true, body: "None", adjust: emailOnly(false))).verdict == .skip)
        let replay = judge.judge(.callbackReplay, Self.played(signedIn: false, status: 400) { $0.cautionIfRefused = "redeemed it again" })
        #expect(replay.verdict == .warn && replay.seen == "redeemed it again")
        #expect(judge.judge(.callbackReplay, Self.played(signedIn: true) { $0.cautionIfRefused = "redeemed it again" }).verdict == .fail)
    }

    @Test("an audit puts back the signing keys and the notification URL it changed, and only those")
    func restoresWhatItChanged() throws {
        let provider = try AppleIDProvider(scenario: try BuiltInScenario.load())
        let base = URL(string: "http://127.0.0.1:8080")!
        let apple = AppleSide(provider: provider, baseURL: base)
        try provider.setNotificationURL("https://app.example.com/apple/notifications", app: "com.example.web")
        let before = provider.keyRing()
        for _ in 0..<3 { _ = try apple.rotateSigningKey() }
        #expect(apple.stopNotifications(app: "com.example.web") == "https://app.example.com/apple/notifications")
        // Another audit's key (a replica sharing the world) is not this audit's to retire.
        let other = try AppleSide(provider: provider, baseURL: base).rotateSigningKey()
        #expect(apple.restore().isEmpty)
        #expect(provider.keyRing().published.map(\.kid) == before.published.map(\.kid) + [other])
        #expect(provider.keyRing().activeKID == other)
        #expect(provider.directory.groups["com.example.app"]?.notificationURL == "https://app.example.com/apple/notifications")
        // What was put back is put back once: a later change is not undone.
        try provider.setNotificationURL(nil, app: "com.example.web")
        #expect(apple.restore().isEmpty && provider.directory.groups["com.example.app"]?.notificationURL == nil)
        let audit = AppleSide(provider: provider, baseURL: base)
        _ = try audit.rotateSigningKey()
        #expect(audit.restore().isEmpty && provider.keyRing().activeKID == other)
        // The persona made anew for the user JSON's cases: a new account (a new sub) each time, deleted at the end.
        let fresh = try audit.freshPersona(withEmail: true)
        let firstSubject = provider.subject(personaID: fresh.id, clientID: "com.example.web")
        let again = try audit.freshPersona(withEmail: false)
        #expect(again.email == nil && provider.subject(personaID: fresh.id, clientID: "com.example.web") != firstSubject)
        #expect(audit.restore().isEmpty && provider.isDeleted(personaID: fresh.id))
        // A scenario's own persona of that id is left alone.
        let theirs = try AppleIDProvider(scenario: try BuiltInScenario.load())
        try theirs.createPersona(Persona(id: AppleSide.freshPersonaID, firstName: "Their", lastName: "Own", email: "own@example.net"))
        #expect(throws: AuditFailure.self) { try AppleSide(provider: theirs, baseURL: base).freshPersona(withEmail: true) }
        #expect(theirs.persona(AppleSide.freshPersonaID)?.firstName == "Their" && !theirs.isDeleted(personaID: AppleSide.freshPersonaID))
    }

    @Test("an authorize link on a page is found, and only the server's")
    func authorizeLink() {
        let base = URL(string: "http://127.0.0.1:8080")!
        let page = #"<a href="http://127.0.0.1:8080/auth/authorize?client_id=a&amp;state=b">Sign in</a>"#
        #expect(AuthorizeLink.find(in: page, serverBaseURL: base)?.query == "client_id=a&state=b")
        #expect(AuthorizeLink.find(in: #"<a href="https://appleid.apple.com/auth/authorize?x=1">"#, serverBaseURL: base) == nil)
    }
}
