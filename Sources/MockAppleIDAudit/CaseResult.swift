import Foundation
import MockAppleID

/// How a relying party fared in one case.
public enum Verdict: String, Sendable, Codable, CaseIterable {
    /// It did what it must.
    case pass = "PASS"
    /// It did what it should not (a should, not a must).
    case warn = "WARN"
    /// It accepted what it must refuse, or refused what it must accept.
    case fail = "FAIL"
    /// The case does not apply to how this relying party signs in.
    case skip = "SKIP"
    /// The audit cannot tell what the relying party did: it stopped on a 2xx page that is neither the signed-in
    /// page nor where it ends a refused sign-in (a sign-up form, say), or its signed-in page does not show which
    /// token it took. Counted apart, and it fails the audit as a FAIL does: nothing was shown to be safe.
    case inconclusive = "INCONCLUSIVE"
}

/// How much a miss weighs: a must (a FAIL) or a should (a WARN).
public enum Severity: String, Sendable, Codable, CaseIterable {
    case must, should
}

/// One case's outcome: what was expected, what was seen, and the evidence.
public struct CaseResult: Sendable, Codable, Equatable {
    /// The case's stable id (`id_token.signature`).
    public let id: String
    public let verdict: Verdict
    /// What Apple's side did.
    public let appleSide: String
    /// What the relying party must do.
    public let expected: String
    /// What it did, in plain words.
    public let seen: String
    /// The observations behind the verdict (statuses, redirects, cookies withheld, token requests).
    public let evidence: [String]
    /// How much a miss of this case weighs for this relying party (nil in a report of an older server).
    public let severity: Severity?
    /// Where the rule comes from (nil in a report of an older server).
    public let reference: String?
    /// How long the case took, in seconds (nil in a report of an older server).
    public internal(set) var seconds: Double?
    /// A JPEG (base64) of the relying party's page after Apple's answer, in the real browser; shown in the HTML report,
    /// never in the JSON one.
    public internal(set) var screenshot: String?

    private enum CodingKeys: String, CodingKey { case id, verdict, appleSide, expected, seen, evidence, severity, reference, seconds }

    /// A result as the judge gives it (or as a test builds one).
    public init(id: String, verdict: Verdict, appleSide: String, expected: String, seen: String, evidence: [String],
                severity: Severity? = nil, reference: String? = nil, seconds: Double? = nil) {
        self.id = id
        self.verdict = verdict
        self.appleSide = appleSide
        self.expected = expected
        self.seen = seen
        self.evidence = evidence
        self.severity = severity
        self.reference = reference
        self.seconds = seconds
    }
}

/// What the audit found: one result per case run, in the order of ``AuditCase``.
public struct AuditReport: Sendable, Codable, Equatable {
    /// The version of mock-appleid that ran the audit (nil in a report of an older server).
    public let version: String?
    /// The relying party's start and signed-in pages (nil in a report of an older server).
    public let start: String?
    public let signedIn: String?
    /// How many cases ended with each verdict, every verdict named (nil in a report of an older server).
    public let totals: [String: Int]?
    /// How long the whole audit took, in seconds (nil in a report of an older server).
    public let seconds: Double?
    /// The cases that did not PASS or SKIP, grouped by the check they test, worst first (nil in a report of an older server).
    public let findings: [Finding]?
    /// What the learning step recorded about the relying party's honest sign-in.
    public let learned: [String]
    /// One result per case run.
    public let cases: [CaseResult]

    /// A report of `cases`, after a learning step that recorded `learned`, of the relying party whose sign-in starts
    /// at `start` and whose signed-in page is `signedIn`, made in `seconds`.
    public init(learned: [String], cases: [CaseResult], start: URL? = nil, signedIn: URL? = nil, seconds: Double? = nil) {
        self.version = MockAppleIDVersion.current
        self.start = start?.absoluteString
        self.signedIn = signedIn?.absoluteString
        self.seconds = seconds
        self.learned = learned
        self.cases = cases
        findings = Finding.of(cases)
        totals = Dictionary(uniqueKeysWithValues: Verdict.allCases.map { verdict in (verdict.rawValue, cases.filter { $0.verdict == verdict }.count) })
    }

    /// Whether any case failed or could not be told: the default gate (``AuditGate``) fails on it, as the command's exit
    /// status 1 does without `--fail-on warn` or `--baseline`.
    public var hasFailures: Bool { !AuditGate().failing(self).isEmpty }

    /// How many cases ended with each verdict.
    public func count(_ verdict: Verdict) -> Int { cases.filter { $0.verdict == verdict }.count }
}
