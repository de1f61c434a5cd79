import Foundation
import MockAppleIDAudit
import MockAppleIDTesting
import Testing

/// The Swift testing library's audit (its cases against real relying parties are run end to end by the
/// conformance suite, through the CLI, which calls the same method).
@Suite("the audit from a Swift test")
struct AuditAPITests {
    @Test("an audit that cannot reach its relying party throws why, before any case")
    func unreachableRelyingParty() async throws {
        try await MockAppleIDTestServer.withRunning { server in
            let closed = try #require(URL(string: "http://127.0.0.1:9/login"))
            let failure = await #expect(throws: AuditFailure.self) {
                try await server.audit(start: closed, signedIn: try #require(URL(string: "http://127.0.0.1:9/me")), cases: [.callbackReplay])
            }
            #expect(failure?.description.contains("could not be reached") == true)
        }
    }

    @Test("bad input is refused before any request: another host for the signed-in page, an unknown persona, no case")
    func badInput() async throws {
        try await MockAppleIDTestServer.withRunning { server in
            let start = try #require(URL(string: "http://127.0.0.1:9/login"))
            let cases: [(URL, String, [AuditCase], String)] = [
                (try #require(URL(string: "http://elsewhere.invalid/me")), "jane", [.callbackReplay], "--signed-in must be on the relying party's host"),
                (try #require(URL(string: "http://127.0.0.1:9/me")), "nobody", [.callbackReplay], "no persona \"nobody\""),
                (try #require(URL(string: "http://127.0.0.1:9/me")), "jane", [], "no case selected"),
                (try #require(URL(string: "ftp://127.0.0.1/me")), "jane", [.callbackReplay], "must be an http or https URL"),
            ]
            for (signedIn, persona, selected, message) in cases {
                let failure = await #expect(throws: AuditFailure.self) {
                    try await server.audit(start: start, signedIn: signedIn, persona: persona, cases: selected)
                }
                #expect(failure?.description.contains(message) == true, "\(failure?.description ?? "")")
            }
        }
    }
}
