import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MockAppleID
import MockAppleIDServer
import Testing

/// `/__admin/timeline`: load (steps, a scenario file's text with its key files, or the scenario's own),
/// step, run, inspect.
@Suite("admin timeline API")
struct AdminTimelineTests {
    static func post(_ client: any TestClientProtocol, _ uri: String, _ body: JSONValue = .object([])) async throws -> (HTTPResponse.Status, JSONValue?) {
        try await client.execute(uri: uri, method: .post, headers: AdminAPITests.json, body: ByteBuffer(string: body.serialized)) {
            ($0.status, $0.json)
        }
    }

    @Test("steps sent as JSON load, step one at a time, run the rest, then 409")
    func stepsAsJSON() async throws {
        let provider = try Harness.provider()
        try await Harness.withRouter(provider) { client in
            let steps = JSONValue.parse(Data(#"""
                {"timeline": [
                  {"do": "signIn", "persona": "jane", "expect": {"user": "present"}},
                  {"do": "signIn", "persona": "jane", "expect": {"user": "absent"}},
                  {"do": "revokeConsent", "persona": "jane", "client": "com.example.web"}
                ]}
                """#.utf8))!
            let (loaded, view) = try await Self.post(client, "/__admin/timeline", steps)
            #expect(loaded == .ok)
            #expect(view?["steps"]?.int64Value == 3 && view?["done"]?.int64Value == 0)
            let (stepped, outcome) = try await Self.post(client, "/__admin/timeline/step")
            #expect(stepped == .ok)
            #expect(outcome?["index"]?.int64Value == 0 && outcome?["passed"] == .bool(true))
            let (ran, rest) = try await Self.post(client, "/__admin/timeline/run")
            #expect(ran == .ok)
            #expect(rest?["done"]?.int64Value == 3 && rest?["passed"] == .bool(true))
            let (done, error) = try await Self.post(client, "/__admin/timeline/step")
            #expect(done == .conflict && error?["error"] == .string("timeline_done"))
            try await client.execute(uri: "/__admin/timeline", method: .get) { #expect($0.json?["done"]?.int64Value == 3) }
            #expect(provider.consent(personaID: "jane", clientID: Harness.webClient) == nil)
        }
    }

    @Test("a scenario file's text loads with the key files sent beside it, keeping its name and lines")
    func scenarioFileText() async throws {
        let provider = try Harness.provider()
        let key = try KeyGenerator.generate(.rsa, kid: "uploaded01")
        let yaml = """
            # a scenario file as `scenario run --url` sends it
            base: default
            name: upload
            timeline:
              - do: addKey
                kid: uploaded01
                file: keys/uploaded.pem
              - do: activateKey
                kid: uploaded01
              - do: nativeSignIn
                persona: jane
                expect: {signedBy: uploaded01, verifies: true}
            """
        try await Harness.withRouter(provider) { client in
            let body = JSONValue.object([("yaml", .string(yaml)), ("file", .string("upload.yaml")),
                                         ("files", .object([("keys/uploaded.pem", .string(key.pem))]))])
            #expect(try await Self.post(client, "/__admin/timeline", body).0 == .ok)
            let (_, view) = try await Self.post(client, "/__admin/timeline/run")
            #expect(view?["passed"] == .bool(true))
            var locations: [String?] = []
            if case let .array(outcomes)? = view?["outcomes"] { locations = outcomes.map { $0["location"]?.stringValue } }
            #expect(locations == ["upload.yaml:5", "upload.yaml:8", "upload.yaml:10"])
        }
        #expect(provider.keyRing().activeKID == "uploaded01")
    }

    @Test("bad timeline bodies are a 400 naming the problem", arguments: [
        (#"{}"#, "give timeline"),
        (#"{"timeline": [], "yaml": "timeline: []"}"#, "give timeline"),
        (#"{"yaml": "timelines: []", "file": "typo.yaml"}"#, #"typo.yaml:1:1: timelines: unknown key "timelines""#),
        (#"{"yaml": "timeline:\n  - do: addKey\n    kid: k1\n    file: missing.pem", "file": "f.yaml"}"#, #"cannot read key file "missing.pem""#),
        (#"{"yaml": "timeline: []", "files": ["a"]}"#, "files must map each path to its text"),
        (#"{"yaml": "timeline: []", "files": {"a": 1}}"#, "files must map each path to its text"),
        (#"{"yaml": 7}"#, "yaml must be text"),
        (#"{"timeline": [{"do": "fly"}]}"#, #"unknown action "fly""#),
    ])
    func badBodies(_ body: String, _ message: String) async throws {
        try await Harness.withRouter(try Harness.provider()) { client in
            try await client.execute(uri: "/__admin/timeline", method: .post, headers: AdminAPITests.json, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .badRequest)
                #expect(response.json?["message"]?.stringValue?.contains(message) == true, "\(response.text)")
            }
        }
    }
}
