import Foundation
import MockAppleID

extension AuditReport {
    /// The terminal table: per case its verdict, id and what was seen, with what Apple's side did and what was
    /// expected under it, and for a case that did not PASS its evidence (and whether the baseline accepts it); then
    /// the totals, the findings by root cause with what each lets happen, and the baseline's findings that now PASS.
    public func table(gate: AuditGate = AuditGate()) -> String {
        var lines = ["What the honest sign-in looked like:"] + learned.map { "  " + $0 } + [""]
        let width = max(4, cases.map(\.id.count).max() ?? 0)
        lines.append("VERDICT  " + "CASE".padding(toLength: width, withPad: " ", startingAt: 0) + "  SEEN")
        let indent = String(repeating: " ", count: 9 + width + 2)
        for result in cases {
            lines.append(result.verdict.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                         + result.id.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + result.seen)
            lines.append(indent + "Apple's side: " + result.appleSide)
            lines.append(indent + "expected: " + result.expected)
            if result.verdict != .pass { lines += result.evidence.map { indent + "evidence: " + $0 } }
            if gate.isAccepted(result), let known = gate.baseline[result.id] {
                lines.append(indent + "accepted by the baseline (\(known.rawValue) there)")
            }
        }
        lines.append("")
        lines.append("\(cases.count) cases: " + totalsText)
        if let findings, !findings.isEmpty {
            lines.append("")
            lines.append("Findings, by the check each case tests:")
            for finding in findings {
                lines.append("  \(finding.verdict.rawValue) (\(finding.severity.rawValue)) \(finding.rootCause.rawValue): \(finding.impact)")
                lines.append("    " + finding.cases.joined(separator: ", "))
            }
        }
        let resolved = gate.resolved(self)
        if !resolved.isEmpty {
            lines.append("now PASS, so the baseline can lose them: " + resolved.map { "\($0.id) (\(gate.baseline[$0.id]?.rawValue ?? ""))" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The totals in words: `73 PASS, 0 FAIL, 0 WARN, 0 SKIP`, with the INCONCLUSIVE ones when there are any.
    var totalsText: String {
        "\(count(.pass)) PASS, \(count(.fail)) FAIL, \(count(.warn)) WARN, \(count(.skip)) SKIP"
            + (count(.inconclusive) > 0 ? ", \(count(.inconclusive)) INCONCLUSIVE" : "")
    }

    /// One JSON object: the report's members (`version`, `start`, `signedIn`, `totals`, `seconds`, `learned`,
    /// `findings` (`rootCause`, `verdict`, `severity`, `impact`, `cases`) and `cases`, each with `id`, `verdict`, `severity`, `reference`, `seconds`, `appleSide`, `expected`, `seen` and
    /// `evidence`) and `gate`: the verdict that fails (`failOn`) and the ids `failing`, `accepted` by the baseline
    /// and `resolved` (in the baseline, now passing).
    public func json(gate: AuditGate = AuditGate()) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(Gated(report: self, gate: gate)), as: UTF8.self)).map { $0 + "\n" } ?? "{}\n"
    }

    /// The report with what the gate made of it.
    private struct Gated: Encodable {
        let report: AuditReport
        let gate: AuditGate

        private enum Key: String, CodingKey { case gate }
        private struct Summary: Encodable {
            let failOn: String
            let failing, accepted, resolved: [String]
        }

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(Summary(failOn: gate.threshold.rawValue, failing: gate.failing(report).map(\.id),
                                         accepted: gate.accepted(report).map(\.id), resolved: gate.resolved(report).map(\.id)), forKey: .gate)
        }
    }

    /// A JUnit XML report: one test case per audit case (with its time). A case the gate fails on is a failure (FAIL,
    /// and WARN with `--fail-on warn`) or an error (INCONCLUSIVE); one the baseline accepts is skipped with that
    /// reason; SKIP is skipped; another WARN passes with WARN in its output. The suite's name carries the totals,
    /// so that WARNs show in a CI's summary.
    public func junit(gate: AuditGate = AuditGate()) -> String {
        let failing = gate.failing(self)
        let errors = failing.filter { $0.verdict == .inconclusive }.count
        let skipped = cases.filter { $0.verdict == .skip || gate.isAccepted($0) }.count
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuite name="mock-appleid audit (\#(totalsText))" tests="\#(cases.count)" failures="\#(failing.count - errors)" "#
            + #"errors="\#(errors)" skipped="\#(skipped)"\#(Self.time(seconds))>"# + "\n"
        for result in cases {
            let group = result.id.split(separator: ".").first.map(String.init) ?? result.id
            xml += #"  <testcase classname="audit.\#(Self.escape(group))" name="\#(Self.escape(result.id))"\#(Self.time(result.seconds))>"# + "\n"
            let detail = Self.escape("Apple's side: \(result.appleSide)\nexpected: \(result.expected)\nseen: \(result.seen)\n"
                                     + result.evidence.joined(separator: "\n"))
            let message = Self.escape(result.seen)
            if gate.fails(result) {
                let element = result.verdict == .inconclusive ? "error" : "failure"
                xml += #"    <\#(element) type="\#(result.verdict.rawValue)" message="\#(message)">\#(detail)</\#(element)>"# + "\n"
            } else if result.verdict == .skip {
                xml += #"    <skipped message="\#(message)"/>"# + "\n"
            } else if gate.isAccepted(result), let known = gate.baseline[result.id] {
                xml += #"    <skipped message="\#(result.verdict.rawValue), accepted by the baseline (\#(known.rawValue) there): \#(message)"/>"# + "\n"
            } else if result.verdict != .pass {
                xml += "    <system-out>\(result.verdict.rawValue): \(detail)</system-out>\n"
            }
            xml += "  </testcase>\n"
        }
        return xml + "</testsuite>\n"
    }

    /// ` time="1.234"` for a known duration.
    private static func time(_ seconds: Double?) -> String { seconds.map { #" time="\#(String(format: "%.3f", $0))""# } ?? "" }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\n", "\t": escaped.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { escaped += "?" } else { escaped.unicodeScalars.append(scalar) }
            }
        }
        return escaped
    }
}

extension AuditFailure {
    /// What `--format json` prints when the audit could not run: one object whose `error` says why, with the tool's
    /// `version` and the relying party's pages when they were given.
    public func json(start: String?, signedIn: String?) -> String {
        var members: [(String, JSONValue)] = [("error", .string(description)), ("version", .string(MockAppleIDVersion.current))]
        if let start { members.append(("start", .string(start))) }
        if let signedIn { members.append(("signedIn", .string(signedIn))) }
        return JSONValue.object(members).serialized + "\n"
    }

    /// What `--junit FILE` holds when the audit could not run: one failing test case saying why.
    public var junit: String {
        #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
            + #"<testsuite name="mock-appleid audit (could not run)" tests="1" failures="1" errors="0" skipped="0">"# + "\n"
            + #"  <testcase classname="audit" name="the audit could not run">"# + "\n"
            + #"    <failure type="NOT_RUN" message="\#(AuditReport.escape(description))">\#(AuditReport.escape(description))</failure>"# + "\n"
            + "  </testcase>\n</testsuite>\n"
    }
}
