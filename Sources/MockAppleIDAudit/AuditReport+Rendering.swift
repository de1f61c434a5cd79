import Foundation

extension AuditReport {
    /// The terminal table: per case its verdict, id and what was seen, with what Apple's side did and what
    /// was expected under it; then the totals.
    public var table: String {
        var lines = ["What the honest sign-in looked like:"] + learned.map { "  " + $0 } + [""]
        let width = max(4, cases.map(\.id.count).max() ?? 0)
        lines.append("VERDICT  " + "CASE".padding(toLength: width, withPad: " ", startingAt: 0) + "  SEEN")
        for result in cases {
            lines.append(result.verdict.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                         + result.id.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + result.seen)
            let indent = String(repeating: " ", count: 9 + width + 2)
            lines.append(indent + "Apple's side: " + result.appleSide)
            lines.append(indent + "expected: " + result.expected)
        }
        lines.append("")
        lines.append("\(cases.count) cases: \(count(.pass)) PASS, \(count(.fail)) FAIL, \(count(.warn)) WARN, \(count(.skip)) SKIP"
                     + (count(.inconclusive) > 0 ? ", \(count(.inconclusive)) INCONCLUSIVE" : ""))
        return lines.joined(separator: "\n") + "\n"
    }

    /// One JSON object: `learned` (lines) and `cases` (`id`, `verdict`, `appleSide`, `expected`, `seen`, `evidence`).
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)).map { $0 + "\n" } ?? "{}\n"
    }

    /// A JUnit XML report: one test case per audit case; FAIL is a failure, INCONCLUSIVE an error, WARN a
    /// passing test whose output says WARN, SKIP skipped.
    public var junit: String {
        let failures = count(.fail)
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuite name="mock-appleid audit" tests="\#(cases.count)" failures="\#(failures)" errors="\#(count(.inconclusive))" skipped="\#(count(.skip))">"# + "\n"
        for result in cases {
            let group = result.id.split(separator: ".").first.map(String.init) ?? result.id
            xml += #"  <testcase classname="audit.\#(Self.escape(group))" name="\#(Self.escape(result.id))">"# + "\n"
            let detail = Self.escape("Apple's side: \(result.appleSide)\nexpected: \(result.expected)\nseen: \(result.seen)\n"
                                     + result.evidence.joined(separator: "\n"))
            switch result.verdict {
            case .pass: break
            case .skip: xml += #"    <skipped message="\#(Self.escape(result.seen))"/>"# + "\n"
            case .fail: xml += #"    <failure type="FAIL" message="\#(Self.escape(result.seen))">\#(detail)</failure>"# + "\n"
            case .warn: xml += "    <system-out>WARN: \(detail)</system-out>\n"
            case .inconclusive: xml += #"    <error type="INCONCLUSIVE" message="\#(Self.escape(result.seen))">\#(detail)</error>"# + "\n"
            }
            xml += "  </testcase>\n"
        }
        return xml + "</testsuite>\n"
    }

    private static func escape(_ text: String) -> String {
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
