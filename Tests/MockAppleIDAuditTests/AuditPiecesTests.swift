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
        #expect(AuditCase.selected(by: ["id_token.*"]).cases.count == 14)
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

        // HS256 keyed with the PEM text of Apple's public key, as a careless verifier would use it.
        let keyFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Keys/signing-\(key.kid).pem")
        let publicPEM = try _RSA.Signing.PrivateKey(pemRepresentation: String(contentsOf: keyFile, encoding: .utf8)).publicKey.pemRepresentation
        let hs256 = forgery.hs256WithPublicKey(claims).split(separator: ".")
        #expect(JSONValue.parse(try #require(Base64URL.decode(hs256[0])))?["alg"]?.stringValue == "HS256")
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(hs256[0]).\(hs256[1])".utf8), using: SymmetricKey(data: Data((publicPEM + "\n").utf8)))
        #expect(Base64URL.decode(hs256[2]) == Data(mac))
        #expect(claims.setting("sub", nil) == .object([("iss", .string("https://appleid.apple.com"))]))
    }

    @Test("the judge: must-refuse, must-accept, should-refuse and answered-cleanly cases")
    func verdicts() {
        func played(signedIn: Bool, status: Int = 303, exchanges: [Int] = [], end: AuditBrowser.End? = nil) -> CaseRunner.Outcome {
            let hop = AuditBrowser.Hop(method: "POST", url: URL(string: "http://rp/cb")!, status: status, withheld: [])
            let navigation = AuditBrowser.Navigation(hops: [hop], end: end ?? .page(status: status, body: "<p>refused &quot;x&quot;</p>"))
            let observation = AuditSession.Observation(callback: navigation, signedIn: .init(status: signedIn ? 200 : 401, body: "", signedIn: signedIn),
                                                       exchanges: exchanges)
            return .played(.init(observation: observation, exchangeMeansAccepted: true))
        }
        #expect(Judge.judge(.idTokenAlgNone, played(signedIn: true)).verdict == .fail)
        #expect(Judge.judge(.idTokenAlgNone, played(signedIn: false)).verdict == .pass)
        #expect(Judge.judge(.idTokenAlgNone, played(signedIn: false, status: 400, exchanges: [200])).verdict == .fail)
        #expect(Judge.judge(.tokenIDTokenSignature, played(signedIn: true)).verdict == .warn)
        #expect(Judge.judge(.tokenInvalidGrant, played(signedIn: false, status: 500)).verdict == .warn)
        #expect(Judge.judge(.tokenSlow, played(signedIn: false, end: .timedOut)).verdict == .warn)
        #expect(Judge.judge(.tokenSlow, played(signedIn: false, status: 400)).verdict == .pass)
        #expect(Judge.judge(.callbackCancel, played(signedIn: false, end: .failed("connection reset"))).verdict == .warn)
        #expect(Judge.judge(.callbackReplay, .judged(.warn, "why")).verdict == .warn)
        #expect(Judge.judge(.callbackNoEmail, played(signedIn: false, status: 400)).verdict == .fail)
        let refused = Judge.judge(.callbackNoEmail, played(signedIn: false, status: 400))
        #expect(refused.evidence.contains("callback page: refused \"x\""))
        #expect(Judge.judge(.callbackNoEmail, .skipped("why")).verdict == .skip)
        // Notifications: the signed-in check after the posting tells whether the relying party acted on it.
        #expect(Judge.judge(.notificationsForged, played(signedIn: false, status: 200)).verdict == .fail)
        #expect(Judge.judge(.notificationsForged, played(signedIn: true, status: 200)).verdict == .warn)
        #expect(Judge.judge(.notificationsForged, played(signedIn: true, status: 400)).verdict == .pass)
        #expect(Judge.judge(.notificationsReplay, played(signedIn: true, status: 200)).verdict == .pass)
        #expect(Judge.judge(.notificationsConsentRevoked, played(signedIn: false, status: 200)).verdict == .pass)
        #expect(Judge.judge(.notificationsConsentRevoked, played(signedIn: true, status: 200)).verdict == .warn)
        #expect(Judge.judge(.notificationsAccountDelete, played(signedIn: false, status: 500)).verdict == .warn)
    }

    @Test("reports: the table's totals, JSON's fields and JUnit's escaping")
    func reports() throws {
        let report = AuditReport(learned: ["start: GET /"], cases: [
            CaseResult(id: "id_token.alg_none", verdict: .fail, appleSide: "a <b> & \"c\"", expected: "e", seen: "s", evidence: ["x"]),
            CaseResult(id: "token.slow", verdict: .skip, appleSide: "a", expected: "e", seen: "why", evidence: []),
        ])
        #expect(report.table.contains("2 cases: 0 PASS, 1 FAIL, 0 WARN, 1 SKIP"))
        #expect(report.table.components(separatedBy: "Apple's side: ").count == 3)
        let decoded = try JSONDecoder().decode(AuditReport.self, from: Data(report.json.utf8))
        #expect(decoded == report)
        #expect(report.junit.contains("a &lt;b&gt; &amp; &quot;c&quot;"))
        #expect(report.junit.contains(#"failures="1" skipped="1""#))
        #expect(report.hasFailures)
    }

    @Test("an authorize link on a page is found, and only the server's")
    func authorizeLink() {
        let base = URL(string: "http://127.0.0.1:8080")!
        let page = #"<a href="http://127.0.0.1:8080/auth/authorize?client_id=a&amp;state=b">Sign in</a>"#
        #expect(AuthorizeLink.find(in: page, serverBaseURL: base)?.query == "client_id=a&state=b")
        #expect(AuthorizeLink.find(in: #"<a href="https://appleid.apple.com/auth/authorize?x=1">"#, serverBaseURL: base) == nil)
    }
}
