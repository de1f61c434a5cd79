import Foundation
import MockAppleID

/// What makes an audit fail a CI job: a FAIL or an INCONCLUSIVE always, a WARN too with `failOn: .warn`, unless a
/// baseline accepts it (a finding a team already knows of, so that it gates on regressions only).
public struct AuditGate: Sendable, Equatable {
    /// The least verdict that fails the job.
    public enum Threshold: String, Sendable, CaseIterable {
        /// FAIL and INCONCLUSIVE.
        case fail
        /// WARN too.
        case warn
    }

    public let threshold: Threshold
    /// The accepted findings: each case's id and the verdict it was accepted at.
    public let baseline: [String: Verdict]

    /// A gate at `threshold` accepting `baseline`'s findings.
    public init(threshold: Threshold = .fail, baseline: [String: Verdict] = [:]) {
        self.threshold = threshold
        self.baseline = baseline
    }

    /// The findings of an earlier audit's JSON report (`--format json`): its FAIL, INCONCLUSIVE and WARN cases. Only
    /// each case's `id` and `verdict` are read, so a report of another version serves (a verdict it does not know is
    /// no finding).
    public static func baseline(fromReport data: Data) throws(AuditFailure) -> [String: Verdict] {
        guard let report = JSONValue.parse(data), case let .array(cases)? = report["cases"] else {
            throw AuditFailure("the baseline is not an audit's JSON report (mock-appleid audit --format json): it has no list of cases")
        }
        var findings: [String: Verdict] = [:]
        for result in cases {
            guard let id = result["id"]?.stringValue, let verdict = result["verdict"]?.stringValue.flatMap(Verdict.init(rawValue:)),
                  rank(verdict) > 0 else { continue }
            findings[id] = findings[id] ?? verdict
        }
        return findings
    }

    /// The cases of `report` that fail the job, in its order.
    public func failing(_ report: AuditReport) -> [CaseResult] { report.cases.filter { fails($0) } }

    /// The cases of `report` that would fail the job but for the baseline, in its order.
    public func accepted(_ report: AuditReport) -> [CaseResult] { report.cases.filter(isAccepted) }

    /// Whether `result` would fail the job but for the baseline.
    public func isAccepted(_ result: CaseResult) -> Bool { failsWithoutBaseline(result) && !fails(result) }

    /// The baseline's findings that `report` no longer shows: cases that now PASS (the baseline can lose them).
    public func resolved(_ report: AuditReport) -> [CaseResult] {
        report.cases.filter { baseline[$0.id] != nil && $0.verdict == .pass }
    }

    /// Whether `result` fails the job: a verdict at the threshold or worse, and worse than the baseline accepted.
    public func fails(_ result: CaseResult) -> Bool {
        guard failsWithoutBaseline(result) else { return false }
        guard let known = baseline[result.id] else { return true }
        return Self.rank(result.verdict) > Self.rank(known)
    }

    private func failsWithoutBaseline(_ result: CaseResult) -> Bool {
        Self.rank(result.verdict) >= (threshold == .warn ? Self.rank(.warn) : Self.rank(.inconclusive))
    }

    /// How bad a verdict is: PASS and SKIP 0, WARN 1, INCONCLUSIVE 2, FAIL 3.
    static func rank(_ verdict: Verdict) -> Int {
        switch verdict {
        case .pass, .skip: return 0
        case .warn: return 1
        case .inconclusive: return 2
        case .fail: return 3
        }
    }
}
