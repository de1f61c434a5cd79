import Foundation
import MockAppleID
import MockAppleIDAudit
import Testing

@Suite("The audit's inputs, as the command line and the admin API give them")
struct AuditRequestTests {
    @Test("inputs survive the JSON the command sends to a running server, and make the same configuration")
    func jsonRoundTrip() throws {
        let request = AuditRequest(start: "http://127.0.0.1:8000/login", signedIn: "http://127.0.0.1:8000/me", persona: "john",
                                   cases: ["callback.*", "keys.rotation"], native: "http://127.0.0.1:8000/native", nativeBody: "token={identity_token}",
                                   nativeNonceSHA256: true, bundleID: "com.example.app", notifications: "http://127.0.0.1:8000/notifications",
                                   ca: "-----BEGIN CERTIFICATE-----\n")
        #expect(try AuditRequest(json: request.json) == request)
        let configuration = try request.configuration()
        #expect(configuration.persona == "john")
        #expect(configuration.cases == AuditCase.selected(by: ["callback.*", "keys.rotation"]).cases)
        #expect(configuration.native?.hashesNonce == true && configuration.native?.bodyTemplate == "token={identity_token}")
        #expect(configuration.notificationsURL?.absoluteString == "http://127.0.0.1:8000/notifications")
        #expect(configuration.trustedCertificates == "-----BEGIN CERTIFICATE-----\n")
        let bare = AuditRequest(start: "http://127.0.0.1:8000/login", signedIn: "http://127.0.0.1:8000/me")
        #expect(bare.json == .object([("start", .string("http://127.0.0.1:8000/login")), ("signedIn", .string("http://127.0.0.1:8000/me"))]))
        #expect(try bare.configuration().cases == AuditCase.allCases)
        #expect(Set(request.json.objectKeys) == Set(AuditRequest.fields))
    }

    @Test("wrong inputs are named", arguments: [
        (#"{"signedIn": "http://h/me"}"#, "--start URL is required"),
        (#"{"start": "http://h/login", "signedIn": 3}"#, "signedIn must be text"),
        (#"{"start": "http://h/login", "signedIn": "http://h/me", "cases": "callback.*"}"#, "cases must be a list"),
        (#"{"start": "http://h/login", "signedIn": "http://h/me", "cases": ["nothing"]}"#, "no case matches nothing"),
        (#"{"start": "http://h/login", "signedIn": "http://h/me", "bundleID": "com.example.app"}"#, "give --native too"),
        (#"{"start": "http://h/login", "signedIn": "http://h/me", "nativeNonceSHA256": "yes"}"#, "nativeNonceSHA256 must be true or false"),
        (#"{"start": "http://h/login", "signedIn": "http://h/me", "ca": 1}"#, "ca must be text"),
        (#"{"start": "http://h/login", "signedIn": "http://h/me", "ca": ""# + String(repeating: "x", count: 65537) + #""}"#, "--ca must be at most 64 KB"),
    ])
    func refused(json: String, message: String) throws {
        let body = try #require(JSONValue.parse(Data(json.utf8)))
        let failure = #expect(throws: AuditFailure.self) { try AuditRequest(json: body).configuration() }
        #expect(failure?.description.contains(message) == true, "\(failure?.description ?? "")")
    }
}

extension JSONValue {
    fileprivate var objectKeys: [String] {
        guard case let .object(members) = self else { return [] }
        return members.map(\.0)
    }
}
