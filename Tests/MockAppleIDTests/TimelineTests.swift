import Foundation
import MockAppleID
import Testing

/// Timelines: the shipped catalogue replays green; wrong expectations fail loudly; bad files name the line.
@Suite("timelines")
struct TimelineTests {
    static let catalogue: [String] = {
        let folder = Fixtures.repositoryRoot.appendingPathComponent("Scenarios/catalogue")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }()

    @Test("the catalogue ships at least 15 scenarios")
    func catalogueSize() {
        #expect(Self.catalogue.count >= 15)
    }

    @Test("every catalogue scenario replays with every expectation met", arguments: catalogue)
    func catalogueRuns(_ name: String) throws {
        let url = Fixtures.repositoryRoot.appendingPathComponent("Scenarios/catalogue/\(name)")
        let scenario = try ScenarioLoader.load(contentsOf: url)
        #expect(!scenario.timeline.steps.isEmpty)
        let provider = try AppleIDProvider(scenario: scenario)
        let outcomes = provider.timeline.runAll(provider)
        #expect(outcomes.count == scenario.timeline.steps.count)
        for outcome in outcomes where !outcome.passed {
            Issue.record("\(name) step \(outcome.index + 1) (\(outcome.summary)): \(outcome.failures.joined(separator: "; "))")
        }
        #expect(provider.journal.entries().allSatisfy { $0.via == .timeline })
    }

    static func scenario(_ timeline: String) throws -> Scenario {
        try ScenarioLoader.load(yaml: "base: default\nclock: {start: 2026-01-01T09:00:00Z, frozen: true}\ntimeline:\n" + timeline,
                                file: "t.yaml", resources: DirectoryResources(baseDirectory: Fixtures.repositoryRoot))
    }

    @Test("an unmet expectation fails the step and says what differed; later steps still run")
    func failingExpectation() throws {
        let scenario = try Self.scenario("""
              - {do: signIn, persona: jane, expect: {user: absent, claims: {aud: com.example.app}}}
              - {do: exchangeCode, expect: {error: invalid_client}}
              - {do: advanceClock, seconds: 60}
            """)
        let provider = try AppleIDProvider(scenario: scenario)
        let outcomes = provider.timeline.runAll(provider)
        #expect(outcomes.map(\.passed) == [false, false, true])
        #expect(outcomes[0].failures.contains("expected user absent, it was present"))
        #expect(outcomes[0].failures.contains { $0.contains("claim aud should be \"com.example.app\"") })
        #expect(outcomes[1].failures == ["expected invalid_client, got invalid_grant (code was already exchanged; codes are single-use)"])
        #expect(provider.clock.now == ISO8601DateFormatter().date(from: "2026-01-01T09:01:00Z"))
        let steps = provider.world.events.events().compactMap { event -> Bool? in
            if case let .timelineStep(_, _, passed) = event.event { return passed }
            return nil
        }
        #expect(steps == [false, false, true])
    }

    @Test("at and after move the clock before a step; due scheduled work fires on the way")
    func timing() throws {
        let scenario = try Self.scenario("""
              - {do: advanceClock, at: 2026-01-02T09:00:00Z, seconds: 0}
              - {do: signIn, after: 30, persona: jane, exchange: false, expect: {claims: {iat: 1767344430}}}
            """)
        let provider = try AppleIDProvider(scenario: scenario)
        provider.scheduleKeyChange(.activate(kid: "mRS3cY7jLd"), at: ISO8601DateFormatter().date(from: "2026-01-02T00:00:00Z")!)
        let outcomes = provider.timeline.runAll(provider)
        #expect(outcomes.allSatisfy { $0.passed })
        #expect(provider.keyRing().activeKID == "mRS3cY7jLd")
    }

    @Test("timeline mistakes name the line and key path", arguments: [
        ("  - {do: fly}", "unknown action \"fly\""),
        ("  - {do: signIn}", "missing required key \"persona\""),
        ("  - {do: signIn, persona: jane, colour: red}", "unknown key \"colour\""),
        ("  - {do: signIn, persona: jane, at: 2026-01-01T09:00:00Z, after: 3}", "give at or after, not both"),
        ("  - {do: advanceClock, seconds: 1e300}", "100 years"),
        ("  - {do: queueFault, fault: {fault: token-delay, seconds: 9999}}", "seconds must be a number above 0"),
        ("  - {do: signIn, persona: jane, expect: {error: nope}}", "is not one of"),
        ("  - {do: exchangeCode, secret: {lifetime: forever}}", "expected a number"),
        ("  - {do: sendMail, from: a@example.com}", "give to: an address, or persona:"),
        ("  - {do: sendMail, from: a@example.com, to: x@privaterelay.appleid.com, persona: jane}", "give to: an address, or persona:"),
        ("  - {do: setEmailSources, team: MOCKTEAM01, sources: example.com}", "expected a list"),
        ("  - {do: transferApp, app: com.example.app}", "missing required key \"to\""),
        ("  - {do: setRelayDomain, domain: icloud.com}", "is not one of"),
        ("  - {do: setRelayDomain}", "missing required key \"domain\""),
        ("  - {do: userMigration, target: OTHERTEAM1, transferSub: x}", "not both"),
        ("  - {do: sendMail, from: a@example.com, to: x@y, expect: {smtpReply: \"\"}}", "must not be empty"),
    ])
    func readerErrors(_ step: String, _ fragment: String) throws {
        do {
            _ = try Self.scenario(step)
            Issue.record("accepted: \(step)")
        } catch let error as ScenarioError {
            #expect(error.description.contains(fragment), "\(error.description)")
            #expect(error.line != nil)
            #expect(error.keyPath.hasPrefix("timeline[0]"), "\(error.keyPath)")
        }
    }
}

/// The scenario-file reference in docs/scenarios.md is generated from the keys the loader accepts.
@Suite("Scenario-file reference")
struct ScenarioReferenceTests {
    @Test("docs/scenarios.md's scenario-file reference is the one made from the schema the loader reads")
    func matchesLoader() throws {
        let readme = try Fixtures.file("docs/scenarios.md")
        let start = try #require(readme.range(of: "<!-- scenario-reference"))
        let end = try #require(readme.range(of: "<!-- /scenario-reference -->"))
        let block = readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: true).dropFirst()
        #expect(block.joined(separator: "\n") == ScenarioSchema.referenceTable, "run Scripts/generate-references")
    }

    @Test("a key the reference does not list is refused")
    func unknownKeyRefused() {
        #expect(throws: ScenarioError.self) {
            try ScenarioLoader.load(yaml: "base: default\nsettings: {codeLifetim: 3}", file: "x.yaml",
                                    resources: DirectoryResources(baseDirectory: Fixtures.repositoryRoot))
        }
    }
}
