import Foundation
import MockAppleID
import Testing

/// Scenario files: the shipped ones load, and bad ones fail with file, line and key path.
@Suite("scenario files")
struct ScenarioLoaderTests {
    /// A minimal valid scenario; `{{KEYS}}` is where key paths resolve from.
    static let minimal = """
        name: minimal
        signingKeys:
          - kid: k1
            file: Keys/signing-mRS1a8XkPq.pem
        teams:
          - id: MOCKTEAM01
            keys:
              - kid: MOCKKEY001
                file: Keys/AuthKey_MOCKKEY001.p8
            apps:
              - primaryAppID: com.example.app
                servicesIDs:
                  - id: com.example.web
                    returnURLs:
                      - https://app.example.com/callback
        personas:
          - id: jane
            email: jane@example.com
        """

    func load(_ yaml: String) throws(ScenarioError) -> Scenario {
        try ScenarioLoader.load(yaml: yaml, file: "test.yaml", resources: DirectoryResources(baseDirectory: Fixtures.repositoryRoot))
    }

    func failure(_ yaml: String) -> ScenarioError? {
        do { _ = try load(yaml); return nil } catch { return error }
    }

    @Test("the built-in scenario is Scenarios/default.yaml and its keys, byte for byte (run Scripts/embed-default-scenario)")
    func builtInMatchesFiles() throws {
        let fromDisk = try ScenarioLoader.load(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Scenarios/default.yaml"))
        let builtIn = try BuiltInScenario.load()
        #expect(builtIn.name == fromDisk.name)
        #expect(builtIn.signingKeys.map(\.publicJWK) == fromDisk.signingKeys.map(\.publicJWK))
        #expect(builtIn.personas == fromDisk.personas)
        #expect(BuiltInScenario.keyFile(named: "AuthKey_MOCKKEY001.p8") == (try Fixtures.file("Keys/AuthKey_MOCKKEY001.p8")))
        let generated = try Fixtures.file("Sources/MockAppleID/Scenario/BuiltInScenario+Files.swift")
        for line in try Fixtures.file("Scenarios/default.yaml").split(separator: "\n") {
            #expect(generated.contains("    " + line), "default.yaml line missing from the built-in copy: \(line)")
        }
    }

    @Test("the default scenario declares what the README promises")
    func defaultScenario() throws {
        let scenario = try BuiltInScenario.load()
        #expect(scenario.settings.allowLoopbackReturnURLs)
        #expect(scenario.activeSigningKeyID == "mRS2bT4nWz")
        #expect(scenario.signingKeys.count == 3)
        #expect(scenario.teams.map(\.id) == ["MOCKTEAM01", "OTHERTEAM1"])
        #expect(scenario.personas.map(\.id) == ["jane", "john", "noemail", "pat"])
        #expect(scenario.autoApprove == nil)
    }

    @Test("a minimal scenario loads with Apple's defaults")
    func minimalLoads() throws {
        let scenario = try load(Self.minimal)
        #expect(scenario.settings == ProviderSettings())
        #expect(scenario.groups.first?.bundleIDs == ["com.example.app"])
        #expect(scenario.personas.first?.emailChoice == .share)
    }

    @Test("JSON is accepted")
    func json() throws {
        let json = """
            {"name": "j", "signingKeys": [{"kid": "k1", "file": "Keys/signing-mRS1a8XkPq.pem"}],
             "teams": [{"id": "MOCKTEAM01", "keys": [{"kid": "MOCKKEY001", "file": "Keys/AuthKey_MOCKKEY001.p8"}],
                        "apps": [{"primaryAppID": "a.b", "servicesIDs": [{"id": "a.b.web", "returnURLs": ["https://a.example.com/cb"]}]}]}],
             "personas": [{"id": "p", "email": null}]}
            """
        #expect(try load(json).personas.first?.email == nil)
    }

    @Test("errors name the line and key path", arguments: [
        ("typo", "https://app.example.com/callback\n", "https://app.example.com/callback\n            retunURLs: []\n", 16, "teams[0].apps[0].servicesIDs[0].retunURLs"),
        ("http return URL", "https://app.example.com/callback", "http://app.example.com/callback", 15, "teams[0].apps[0].servicesIDs[0].returnURLs[0]"),
        ("loopback without the knob", "https://app.example.com/callback", "http://localhost:3000/callback", 15, "teams[0].apps[0].servicesIDs[0].returnURLs[0]"),
        ("IP return URL", "https://app.example.com/callback", "https://203.0.113.9/callback", 15, "teams[0].apps[0].servicesIDs[0].returnURLs[0]"),
        ("fragment", "https://app.example.com/callback", "https://app.example.com/callback#x", 15, "teams[0].apps[0].servicesIDs[0].returnURLs[0]"),
        ("team id", "id: MOCKTEAM01", "id: team1", 6, "teams[0].id"),
        ("missing key file", "Keys/AuthKey_MOCKKEY001.p8", "Keys/nope.p8", 9, "teams[0].keys[0].file"),
        ("not a key", "Keys/AuthKey_MOCKKEY001.p8", "Package.swift", 9, "teams[0].keys[0].file"),
        ("bad email", "jane@example.com", "jane", 18, "personas[0].email"),
    ] as [(String, String, String, Int, String)])
    func located(_ name: String, _ original: String, _ replacement: String, _ line: Int, _ keyPath: String) throws {
        let error = try #require(failure(Self.minimal.replacingOccurrences(of: original, with: replacement)), "\(name) should fail")
        #expect(error.line == line, "\(name): \(error)")
        #expect(error.keyPath == keyPath, "\(name): \(error)")
        #expect(error.description.hasPrefix("test.yaml:\(line):"))
    }

    @Test("loopback return URLs pass with the knob on")
    func loopbackKnob() throws {
        let yaml = "settings:\n  allowLoopbackReturnURLs: true\n" + Self.minimal.replacingOccurrences(
            of: "https://app.example.com/callback", with: "http://127.0.0.1:3000/callback")
        #expect(try load(yaml).groups[0].servicesIDs[0].returnURLs == ["http://127.0.0.1:3000/callback"])
    }

    @Test("booleans are read by their spelling, YAML 1.1's in three cases; a quoted one is text", arguments: [
        ("true", true), ("Yes", true), ("ON", true), ("false", false), ("no", false), ("Off", false),
    ])
    func booleanSpellings(_ spelling: String, _ allowed: Bool) throws {
        let yaml = "settings:\n  allowLoopbackReturnURLs: \(spelling)\n" + Self.minimal.replacingOccurrences(
            of: "https://app.example.com/callback", with: "http://127.0.0.1:3000/callback")
        let error = failure(yaml)
        #expect((error == nil) == allowed, "\(spelling): \(String(describing: error))")
        if !allowed { #expect(error?.keyPath.contains("returnURLs") == true, "\(spelling): \(String(describing: error))") }
        for text in ["\"\(spelling)\"", "'\(spelling)'", "1"] {
            let quoted = failure("settings:\n  allowLoopbackReturnURLs: \(text)\n" + Self.minimal)
            #expect(quoted?.keyPath == "settings.allowLoopbackReturnURLs" && quoted?.message == "expected true or false", "\(text)")
        }
    }

    @Test("the relay section and email sources are bounded", arguments: [
        ("relay:\n  dailyLimit: -1\n", "relay.dailyLimit"),
        ("relay:\n  dailyLimit: 1e30\n", "relay.dailyLimit"),
        ("relay:\n  maxMessageSize: 100\n", "relay.maxMessageSize"),
        ("relay:\n  maxMessageSize: 999999999999\n", "relay.maxMessageSize"),
        ("relay:\n  inboxCapacity: 0\n", "relay.inboxCapacity"),
        ("relay:\n  senderRejection: go away\n", "relay.senderRejection"),
        ("relay:\n  colour: red\n", "relay.colour"),
        ("relay:\n  addressDomain: icloud.com\n", "relay.addressDomain"),
        ("settings:\n  refreshTokenRevocation: everything\n", "settings.refreshTokenRevocation"),
        ("settings:\n  pkce: true\n", "settings.pkce"),
        ("errors:\n  userMigrationInfoAfterTransfer: invalid_client\n", "errors.userMigrationInfoAfterTransfer"),
    ])
    func relayKnobs(_ section: String, _ keyPath: String) throws {
        let error = try #require(failure(section + Self.minimal), "\(section) should fail")
        #expect(error.keyPath == keyPath, "\(error)")
    }

    @Test("bad email sources name the team's key", arguments: ["[not a domain]", "[localhost]", "example.com"])
    func badEmailSources(_ value: String) throws {
        let yaml = Self.minimal.replacingOccurrences(of: "  - id: MOCKTEAM01\n", with: "  - id: MOCKTEAM01\n    emailSources: \(value)\n")
        let error = try #require(failure(yaml), "\(value) should fail")
        #expect(error.keyPath == "teams[0].emailSources", "\(error)")
        let good = Self.minimal.replacingOccurrences(of: "  - id: MOCKTEAM01\n", with: "  - id: MOCKTEAM01\n    emailSources: [Example.COM, a@b.example]\n")
        #expect(try load(good).teams[0].emailSources == ["example.com", "a@b.example"])
    }

    @Test("structural errors", arguments: [
        ("name: [unclosed", "YAML syntax"),
        ("", "empty"),
        ("- a list", "expected a mapping"),
        ("name: x", "missing required key \"signingKeys\""),
    ])
    func structural(_ yaml: String, _ fragment: String) throws {
        let error = try #require(failure(yaml))
        #expect(error.description.contains(fragment), "\(error)")
    }

    @Test("duplicates and cross-references are checked")
    func consistency() throws {
        let twice = Self.minimal + "\n  - id: jane\n"
        #expect(failure(twice)?.message.contains("declared twice") == true)
        let unknownAuto = Self.minimal + "\nautoApprove:\n  persona: ghost\n"
        #expect(failure(unknownAuto)?.keyPath == "autoApprove")
        let hideWithoutEmail = Self.minimal.replacingOccurrences(of: "    email: jane@example.com", with: "    emailChoice: hide")
        #expect(failure(hideWithoutEmail)?.message.contains("nothing to hide") == true)
        let twoSigners = Self.minimal.replacingOccurrences(of: "    file: Keys/signing-mRS1a8XkPq.pem",
            with: "    file: Keys/signing-mRS1a8XkPq.pem\n    signing: true\n  - kid: k2\n    file: Keys/signing-mRS3cY7jLd.pem\n    signing: true")
        #expect(failure(twoSigners)?.message.contains("only one signing key") == true)
    }

    @Test("autoApprove and an inline public developer key are read")
    func autoApproveAndPublicKey() throws {
        // openssl ec -in Keys/AuthKey_MOCKKEY001.p8 -pubout
        let inlinePublicKey = """
                    pem: |
                      -----BEGIN PUBLIC KEY-----
                      MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEMMV48K371AWtt4Mkcz+KxQ0irFGl
                      1Z0C8pKGso8LlPmFdzQJQQkWrZyNUr7UhGbTF8L2T9p+DsADREsyZB7Ugw==
                      -----END PUBLIC KEY-----
            """
        let yaml = Self.minimal.replacingOccurrences(of: "        file: Keys/AuthKey_MOCKKEY001.p8", with: inlinePublicKey)
            + "\nautoApprove:\n  persona: jane\n  emailChoice: hide\n"
        let scenario = try load(yaml)
        #expect(scenario.autoApprove == AutoApprove(persona: "jane", emailChoice: .hide))
        let provider = try AppleIDProvider(scenario: scenario, clock: .manual(at: Fixtures.start))
        let client = provider.directory.client(Fixtures.webClient)!
        let team = provider.directory.team(of: client)!
        #expect(team.developerKeys["MOCKKEY001"]?.location == nil)
        #expect(ClientSecretVerifier(settings: ProviderSettings()).verify(Fixtures.secret(), client: client, team: team, now: Fixtures.start).failure == nil)
    }

    @Test("every shipped scenario file is valid")
    func shippedScenarios() throws {
        let folder = Fixtures.repositoryRoot.appendingPathComponent("Scenarios")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".json") }
        #expect(!files.isEmpty)
        for file in files {
            #expect(throws: Never.self, "\(file)") { try ScenarioLoader.load(contentsOf: folder.appendingPathComponent(file)) }
        }
    }
}
