/// How a relying party fared in one case.
public enum Verdict: String, Sendable, Codable {
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

    /// A result as the judge gives it (or as a test builds one).
    public init(id: String, verdict: Verdict, appleSide: String, expected: String, seen: String, evidence: [String]) {
        self.id = id
        self.verdict = verdict
        self.appleSide = appleSide
        self.expected = expected
        self.seen = seen
        self.evidence = evidence
    }
}

/// What the audit found: one result per case run, in the order of ``AuditCase``.
public struct AuditReport: Sendable, Codable, Equatable {
    /// What the learning step recorded about the relying party's honest sign-in.
    public let learned: [String]
    /// One result per case run.
    public let cases: [CaseResult]

    /// A report of `cases`, after a learning step that recorded `learned`.
    public init(learned: [String], cases: [CaseResult]) {
        self.learned = learned
        self.cases = cases
    }

    /// Whether any case failed or could not be told (the command's exit status is then 1).
    public var hasFailures: Bool { cases.contains { $0.verdict == .fail || $0.verdict == .inconclusive } }

    /// How many cases ended with each verdict.
    public func count(_ verdict: Verdict) -> Int { cases.filter { $0.verdict == verdict }.count }
}
