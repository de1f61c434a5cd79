import Foundation
import MockAppleID
@testable import MockAppleIDAudit
import Testing

@Suite("The audit's outputs: the table, JSON, JUnit, the gate and its baseline, findings by root cause")
struct AuditOutputTests {
    static func result(_ id: AuditCase, _ verdict: Verdict, seen: String = "s", evidence: [String] = []) -> CaseResult {
        CaseResult(id: id.id, verdict: verdict, appleSide: "a <b> & \"c\"", expected: "e", seen: seen, evidence: evidence, seconds: 1.5)
    }

    @Test("the table's totals and evidence, JSON's members, JUnit's escaping and times")
    func renderings() throws {
        let report = AuditReport(learned: ["start: GET /"], cases: [Self.result(.idTokenAlgNone, .fail, evidence: ["callback: POST /cb → 303"]),
                                                                    Self.result(.tokenSlow, .skip, seen: "why")],
                                 start: URL(string: "http://rp/login"), signedIn: URL(string: "http://rp/me"), seconds: 3)
        let table = report.table()
        #expect(table.contains("2 cases: 0 PASS, 1 FAIL, 0 WARN, 1 SKIP"))
        #expect(table.components(separatedBy: "Apple's side: ").count == 3)
        #expect(table.contains("evidence: callback: POST /cb → 303"))
        #expect(table.contains("FAIL (must) algorithm: a token with alg none"))
        let decoded = try JSONDecoder().decode(AuditReport.self, from: Data(report.json().utf8))
        #expect(decoded == report)
        let json = try #require(JSONValue.parse(Data(report.json().utf8)))
        #expect(json["version"]?.stringValue == MockAppleIDVersion.current)
        #expect(json["start"]?.stringValue == "http://rp/login" && json["signedIn"]?.stringValue == "http://rp/me")
        #expect(json["totals"]?["FAIL"]?.int64Value == 1 && json["totals"]?["INCONCLUSIVE"]?.int64Value == 0)
        #expect(json["gate"]?["failing"] == .array([.string("id_token.alg_none")]))
        let junit = report.junit()
        #expect(junit.contains("a &lt;b&gt; &amp; &quot;c&quot;"))
        #expect(junit.contains(#"failures="1" errors="0" skipped="1" time="3.000""#))
        #expect(junit.contains(#"name="mock-appleid audit (0 PASS, 1 FAIL, 0 WARN, 1 SKIP)""#))
        #expect(junit.contains(#"name="id_token.alg_none" time="1.500""#))
        #expect(report.hasFailures)

        let untold = AuditReport(learned: [], cases: [Self.result(.tokenIDTokenSubjectMismatch, .inconclusive, seen: "stopped")])
        #expect(untold.table().contains("1 cases: 0 PASS, 0 FAIL, 0 WARN, 0 SKIP, 1 INCONCLUSIVE"))
        #expect(untold.junit().contains(#"errors="1""#) && untold.junit().contains(#"<error type="INCONCLUSIVE" message="stopped">"#))
        #expect(untold.hasFailures)
    }

    @Test("the HTML page: totals, the gate, findings linking their cases, each case with its evidence, the RP's text only ever text")
    func html() throws {
        let report = AuditReport(learned: ["start: GET /"], cases: [
            Self.result(.idTokenAlgNone, .fail, seen: "signed in", evidence: ["page: <script>alert(1)</script>"]),
            Self.result(.callbackReplay, .warn), Self.result(.tokenSlow, .skip, seen: "why"), Self.result(.callbackCancel, .pass),
        ], start: URL(string: "http://rp/login"), signedIn: URL(string: "http://rp/me"), seconds: 3)
        let html = report.html()
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("<title>mock-appleid audit: 1 PASS, 1 FAIL, 1 WARN, 1 SKIP</title>"))
        #expect(!html.contains("<script") && html.contains("page: &lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("a &lt;b&gt; &amp; &quot;c&quot;"))
        #expect(html.contains(#"<p class="gate fails" id="gate">the audit fails (exit status 1): id_token.alg_none</p>"#))
        #expect(html.contains(##"<a href="#case-id_token.alg_none">id_token.alg_none</a>"##))
        // The cases that did not PASS or SKIP are open; INCONCLUSIVE is counted only when there is one.
        #expect(html.contains(#"<details class="case" id="case-id_token.alg_none" data-verdict="FAIL" open>"#))
        #expect(html.contains(#"<details class="case" id="case-callback.replay" data-verdict="WARN" open>"#))
        #expect(html.contains(#"<details class="case" id="case-token.slow" data-verdict="SKIP">"#))
        #expect(html.contains(#"<details class="case" id="case-callback.cancel" data-verdict="PASS">"#))
        #expect(!html.contains(#"data-verdict="INCONCLUSIVE""#))
        #expect(html.contains(#"<span class="pass" data-verdict="PASS">1 PASS</span><span class="fail" data-verdict="FAIL">1 FAIL</span>"#))
        #expect(html.contains("<li>start: GET /</li>") && html.contains("<code>http://rp/login</code>"))

        let accepted = report.html(gate: AuditGate(baseline: ["id_token.alg_none": .fail, "callback.cancel": .warn]))
        #expect(accepted.contains("accepted by the baseline (FAIL there)"))
        #expect(accepted.contains(#"<p class="gate" id="gate">the audit passes (it fails on FAIL or INCONCLUSIVE)</p>"#))
        #expect(accepted.contains(#"<p class="note" id="resolved">now PASS, so the baseline can lose them: callback.cancel (WARN)</p>"#))
        #expect(html.contains("<p class=\"note\">mock-appleid \(MockAppleIDVersion.current) · 3.0 s") && html.contains("<dd>1.50 s</dd>"))
        // A case without its time shows none, not the audit's.
        let older = AuditReport(learned: [], cases: [CaseResult(id: "callback.cancel", verdict: .pass, appleSide: "a", expected: "e",
                                                                seen: "s", evidence: [])], seconds: 3)
        #expect(!older.html().contains("<dt>Time</dt>") && older.html().contains("3.0 s"))

        let notRun = AuditFailure("the relying party at <http://rp> did not answer").html(start: "http://rp/login", signedIn: nil)
        #expect(notRun.contains(#"<p class="failure" id="failure">the relying party at &lt;http://rp&gt; did not answer</p>"#))
        #expect(notRun.contains("<title>mock-appleid audit: could not run</title>") && !notRun.contains("<details"))
    }

    @Test("findings group the cases one missing check failed, worst first, with a must's or a should's impact")
    func findings() throws {
        let report = AuditReport(learned: [], cases: [
            Self.result(.idTokenSignature, .fail), Self.result(.tokenIDTokenSignature, .warn), Self.result(.keysUnreachable, .fail),
            Self.result(.callbackReplay, .warn), Self.result(.tokenIDTokenSubjectMismatch, .inconclusive), Self.result(.callbackCancel, .pass),
            Self.result(.idTokenNonce, .skip),
        ])
        let findings = try #require(report.findings)
        #expect(findings.map(\.rootCause) == [.signature, .samePerson, .codeReplay])
        #expect(findings[0].cases == ["id_token.signature", "token_id_token.signature", "keys.unreachable"])
        #expect(findings[0].severity == .must && findings[0].verdict == .fail)
        #expect(findings[1].verdict == .inconclusive && findings[1].impact.hasPrefix("the audit cannot tell whether"))
        #expect(findings[2].severity == .should && findings[2].impact.contains("only Apple's invalid_grant stops"))
        // Every case has a root cause, and every root cause an impact for a must and a should.
        #expect(Set(AuditCase.allCases.map(\.rootCause)) == Set(RootCause.allCases))
        #expect(RootCause.allCases.allSatisfy { !$0.impact(.must).isEmpty && !$0.impact(.should).isEmpty })
    }

    @Test("the gate: FAIL and INCONCLUSIVE fail, WARN with --fail-on warn; a baseline accepts findings no worse than it names")
    func gate() throws {
        let earlier = AuditReport(learned: [], cases: [Self.result(.callbackStateMissing, .fail), Self.result(.callbackReplay, .warn),
                                                       Self.result(.callbackCancel, .pass)])
        let baseline = try AuditGate.baseline(fromReport: Data(earlier.json().utf8))
        #expect(baseline == ["callback.state_missing": .fail, "callback.replay": .warn])

        let same = AuditReport(learned: [], cases: earlier.cases)
        #expect(AuditGate().failing(same).map(\.id) == ["callback.state_missing"])
        #expect(AuditGate(threshold: .warn).failing(same).map(\.id) == ["callback.state_missing", "callback.replay"])
        #expect(AuditGate(threshold: .warn, baseline: baseline).failing(same).isEmpty)
        #expect(AuditGate(baseline: baseline).accepted(same).map(\.id) == ["callback.state_missing"])
        let table = same.table(gate: AuditGate(baseline: baseline))
        #expect(table.contains("accepted by the baseline (FAIL there)"))
        let junit = same.junit(gate: AuditGate(baseline: baseline))
        #expect(junit.contains(#"<skipped message="FAIL, accepted by the baseline (FAIL there): s"/>"#) && !junit.contains("<failure "))

        // Worse than the baseline fails; a baselined case that now passes is said.
        let changed = AuditReport(learned: [], cases: [Self.result(.callbackStateMissing, .pass), Self.result(.callbackReplay, .fail),
                                                        Self.result(.callbackCancel, .warn)])
        let gate = AuditGate(baseline: baseline)
        #expect(gate.failing(changed).map(\.id) == ["callback.replay"])
        #expect(gate.resolved(changed).map(\.id) == ["callback.state_missing"])
        #expect(changed.table(gate: gate).contains("now PASS, so the baseline can lose them: callback.state_missing (FAIL)"))
        let json = try #require(JSONValue.parse(Data(changed.json(gate: gate).utf8)))
        #expect(json["gate"]?["resolved"] == .array([.string("callback.state_missing")]))

        #expect(throws: AuditFailure.self) { try AuditGate.baseline(fromReport: Data("[1, 2]".utf8)) }
    }

    @Test("an audit that could not run still leaves one JSON object and one failing JUnit test, saying why")
    func failureOutputs() throws {
        let failure = AuditFailure("the honest sign-in did not succeed: <cookie> & more")
        let json = try #require(JSONValue.parse(Data(failure.json(start: "http://rp/login", signedIn: nil).utf8)))
        #expect(json["error"]?.stringValue == failure.description && json["start"]?.stringValue == "http://rp/login" && json["signedIn"] == nil)
        #expect(json["version"]?.stringValue == MockAppleIDVersion.current)
        #expect(failure.junit.contains(#"tests="1" failures="1""#))
        #expect(failure.junit.contains(#"message="the honest sign-in did not succeed: &lt;cookie&gt; &amp; more""#))
    }
}
