import Foundation
import MockAppleID
import Mustache

extension AuditReport {
    /// The report as one self-contained HTML page (no script, no outside resource), for a person opening a CI
    /// artifact: the totals and the gate's outcome, the findings by root cause with what each lets happen, what the
    /// honest sign-in looked like, then each case with its verdict, what Apple's side did, what was expected, what the
    /// relying party did and the evidence. The cases that did not PASS or SKIP are open; the others fold.
    public func html(gate: AuditGate = AuditGate()) -> String {
        AuditHTML.render(AuditHTML.Page(report: self, gate: gate))
    }
}

extension AuditFailure {
    /// What `--html FILE` holds when the audit could not run: one page saying why.
    public func html(start: String?, signedIn: String?) -> String {
        AuditHTML.render(AuditHTML.Page(failure: description, start: start, signedIn: signedIn))
    }
}

/// The HTML report's template and the values it names. `{{name}}` escapes HTML, so whatever the relying party
/// answered (its page text, its cookies) can only ever be text in the page.
enum AuditHTML {
    /// The page's values.
    struct Page {
        let title: String
        let version: String
        let start: String?
        let signedIn: String?
        /// How long the audit took. (Named apart from a case's `time`: a section looks a name it lacks up in the page.)
        let duration: String?
        let failure: String?
        let totals: [Total]
        /// The gate's outcome in words, such as "the audit fails (exit status 1): callback.replay".
        let gateLine: String?
        let gateFails: Bool
        /// The cases a baseline names that now PASS.
        let resolved: String?
        let findings: [FindingRow]
        let learned: [String]
        let cases: [CaseRow]

        init(report: AuditReport, gate: AuditGate) {
            title = "mock-appleid audit: " + report.totalsText
            version = report.version.map { "mock-appleid " + $0 } ?? "an older mock-appleid"
            start = report.start
            signedIn = report.signedIn
            duration = report.seconds.map { String(format: "%.1f s", $0) }
            failure = nil
            // In the order of the totals' words (`totalsText`); INCONCLUSIVE only when a case is.
            totals = [Verdict.pass, .fail, .warn, .skip, .inconclusive].map { Total(verdict: $0.rawValue, style: $0.style, count: report.count($0)) }
                .filter { $0.count > 0 || $0.verdict != Verdict.inconclusive.rawValue }
            let failing = gate.failing(report)
            gateFails = !failing.isEmpty
            gateLine = failing.isEmpty
                ? "the audit passes (it fails on " + (gate.threshold == .warn ? "FAIL, INCONCLUSIVE or WARN)" : "FAIL or INCONCLUSIVE)")
                : "the audit fails (exit status 1): " + failing.map(\.id).joined(separator: ", ")
            let resolvedCases = gate.resolved(report)
            resolved = resolvedCases.isEmpty ? nil : "now PASS, so the baseline can lose them: "
                + resolvedCases.map { "\($0.id) (\(gate.baseline[$0.id]?.rawValue ?? ""))" }.joined(separator: ", ")
            findings = (report.findings ?? []).map(FindingRow.init)
            learned = report.learned
            cases = report.cases.map { CaseRow($0, gate: gate) }
        }

        init(failure message: String, start: String?, signedIn: String?) {
            title = "mock-appleid audit: could not run"
            version = "mock-appleid " + MockAppleIDVersion.current
            self.start = start
            self.signedIn = signedIn
            duration = nil
            failure = message
            totals = []
            gateLine = "the audit could not run (exit status 2)"
            gateFails = true
            resolved = nil
            findings = []
            learned = []
            cases = []
        }
    }

    struct Total {
        let verdict: String
        let style: String
        let count: Int
    }

    struct FindingRow {
        let verdict: String
        let style: String
        let severity: String
        let rootCause: String
        let impact: String
        /// Its cases' ids.
        let cases: [String]

        init(_ finding: Finding) {
            verdict = finding.verdict.rawValue
            style = finding.verdict.style
            severity = finding.severity.rawValue
            rootCause = finding.rootCause.rawValue
            impact = finding.impact
            cases = finding.cases
        }
    }

    struct CaseRow {
        let id: String
        let verdict: String
        let style: String
        /// Open when it did not PASS or SKIP.
        let open: Bool
        let appleSide: String
        let expected: String
        let seen: String
        let evidence: [String]
        let severity: String?
        let reference: String?
        let time: String?
        /// The page after Apple's answer (a base64 JPEG), in the real browser.
        let screenshot: String?
        /// Why the gate does not fail it though its verdict would.
        let accepted: String?
        let failsGate: Bool

        init(_ result: CaseResult, gate: AuditGate) {
            id = result.id
            verdict = result.verdict.rawValue
            style = result.verdict.style
            open = AuditGate.rank(result.verdict) > 0
            appleSide = result.appleSide
            expected = result.expected
            seen = result.seen
            evidence = result.evidence
            severity = result.severity?.rawValue
            reference = result.reference
            time = result.seconds.map { String(format: "%.2f s", $0) }
            screenshot = result.screenshot
            accepted = gate.isAccepted(result) ? gate.baseline[result.id].map { "accepted by the baseline (\($0.rawValue) there)" } : nil
            failsGate = gate.fails(result)
        }
    }

    static func render(_ page: Page) -> String {
        guard let html = library.render(page, withTemplate: "report") else { preconditionFailure("no audit report template") }
        return html
    }

    private static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        do { try library.register(template, named: "report") } catch {
            preconditionFailure("the audit report template does not parse: \(error)")  // a constant; the report tests render it
        }
        return library
    }()

    private static let template = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}}</title>
        <style>
        body { font-family: -apple-system, system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
        h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
        code { background: #f5f5f7; padding: 0 .2rem; } .note { color: #6e6e73; }
        .verdict { display: inline-block; min-width: 7.5rem; font-weight: 600; font-family: ui-monospace, monospace; }
        .pass { color: #1a7f37; } .fail, .inconclusive { color: #d70015; } .warn { color: #9a6700; } .skip { color: #6e6e73; }
        .totals span { margin-right: 1.2rem; } .gate { padding: .6rem .8rem; border-radius: 8px; background: #e6f4ea; }
        .gate.fails { background: #fde7e9; } .failure { border-left: 4px solid #d70015; padding-left: .8rem; white-space: pre-wrap; }
        details { border-top: 1px solid #d2d2d7; padding: .4rem 0; } summary { cursor: pointer; }
        dl { display: grid; grid-template-columns: 9rem 1fr; gap: .3rem 1rem; margin: .6rem 0 .6rem 1.5rem; }
        dt { color: #6e6e73; } dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
        ul.evidence { margin: 0; padding-left: 1.1rem; } img.screenshot { max-width: 100%; border: 1px solid #ccc; } table { border-collapse: collapse; } td, th { text-align: left; padding: .3rem .6rem; vertical-align: top; }
        </style>
        </head>
        <body>
        <h1>{{title}}</h1>
        <p class="note">{{version}}{{#duration}} · {{.}}{{/duration}}{{#start}} · sign-in starts at <code>{{.}}</code>{{/start}}{{#signedIn}} · signed-in page <code>{{.}}</code>{{/signedIn}}</p>
        <p class="gate{{#gateFails}} fails{{/gateFails}}" id="gate">{{gateLine}}</p>
        {{#resolved}}<p class="note" id="resolved">{{.}}</p>{{/resolved}}
        {{#failure}}<p class="failure" id="failure">{{.}}</p>{{/failure}}
        {{^empty(totals)}}<p class="totals" id="totals">{{#totals}}<span class="{{style}}" data-verdict="{{verdict}}">{{count}} {{verdict}}</span>{{/totals}}</p>{{/empty(totals)}}
        {{^empty(findings)}}
        <h2>Findings, by the check each case tests</h2>
        <table id="findings">
        <tr><th>Verdict</th><th>Check</th><th>What it lets happen</th><th>Cases</th></tr>
        {{#findings}}<tr><td class="{{style}}">{{verdict}} ({{severity}})</td><td><code>{{rootCause}}</code></td><td>{{impact}}</td><td>{{#cases}}<a href="#case-{{.}}">{{.}}</a> {{/cases}}</td></tr>
        {{/findings}}
        </table>
        {{/empty(findings)}}
        {{^empty(learned)}}
        <h2>What the honest sign-in looked like</h2>
        <ul id="learned">{{#learned}}<li>{{.}}</li>{{/learned}}</ul>
        {{/empty(learned)}}
        {{^empty(cases)}}<h2>Cases</h2>{{/empty(cases)}}
        {{#cases}}
        <details class="case" id="case-{{id}}" data-verdict="{{verdict}}"{{#open}} open{{/open}}>
        <summary><span class="verdict {{style}}">{{verdict}}</span> <code>{{id}}</code> {{seen}}</summary>
        <dl>
        <dt>Apple's side</dt><dd>{{appleSide}}</dd>
        <dt>Expected</dt><dd>{{expected}}</dd>
        <dt>Seen</dt><dd>{{seen}}</dd>
        {{^empty(evidence)}}<dt>Evidence</dt><dd><ul class="evidence">{{#evidence}}<li>{{.}}</li>{{/evidence}}</ul></dd>{{/empty(evidence)}}
        {{#screenshot}}<dt>The page after Apple's answer</dt><dd><img class="screenshot" alt="the relying party's page after Apple's answer" src="data:image/jpeg;base64,{{.}}"></dd>{{/screenshot}}
        {{#severity}}<dt>Severity</dt><dd>{{.}}</dd>{{/severity}}
        {{#reference}}<dt>Reference</dt><dd>{{.}}</dd>{{/reference}}
        {{#time}}<dt>Time</dt><dd>{{.}}</dd>{{/time}}
        {{#accepted}}<dt>Gate</dt><dd>{{.}}</dd>{{/accepted}}
        {{#failsGate}}<dt>Gate</dt><dd>fails the audit</dd>{{/failsGate}}
        </dl>
        </details>
        {{/cases}}
        </body>
        </html>

        """
}

extension Verdict {
    /// The report's style for the verdict (its CSS class).
    var style: String { rawValue.lowercased() }
}
