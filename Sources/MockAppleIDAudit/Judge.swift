import Foundation

/// Turns what the relying party did in a case into a verdict, with the evidence for it, against what the learning
/// step found.
struct Judge {
    /// Cases where the relying party should also answer without a 5xx of its own.
    private static let answersCleanly: Set<AuditCase> = [.callbackCancel, .tokenInvalidGrant, .tokenServerError, .tokenSlow, .idTokenExpiryFarFuture,
                                                          .tokenIDTokenExpiryFarFuture]
    /// Cases where Apple's side itself fails, so a gateway's answer (502 bad gateway, 503 unavailable, 504 timed
    /// out) is what the relying party should give; an unhandled 500 is not.
    private static let gatewayAnswersAreClean: Set<AuditCase> = [.tokenServerError, .tokenSlow]

    let learned: Learned

    /// Said of a withheld cookie when the relying party is audited over http.
    static let schemeNote = "; it was audited over http, and some libraries mark their cookies SameSite=None; Secure only over https "
        + "(audit it over https, with --ca for its certificate, to tell)"

    /// Whether Apple's answer goes to the relying party over plain http.
    private var overHTTP: Bool { learned.request.first("redirect_uri").flatMap(URL.init(string:))?.scheme?.lowercased() == "http" }

    func judge(_ auditCase: AuditCase, _ outcome: CaseRunner.Outcome) -> CaseResult {
        let rule = auditCase.rule
        let played: CaseRunner.Played
        switch outcome {
        case let .skipped(reason):
            return result(auditCase, .skip, seen: reason, evidence: [])
        case let .judged(verdict, seen, evidence):
            return result(auditCase, verdict, seen: seen, evidence: evidence)
        case let .played(value):
            played = value
        }
        let observation = played.observation
        var evidence = played.evidence
        evidence.append("callback: \(observation.callback.summary)")
        if let status = observation.callback.finalStatus, status >= 400, let text = PageText.excerpt(observation.callback.finalBody) {
            evidence.append("callback page: \(text)")
        }
        evidence.append("signed-in page: \(observation.signedIn.status.map(String.init) ?? "no answer")")
        evidence.append(observation.exchanges.isEmpty ? "no code exchange at /auth/token"
                        : "code exchanges at /auth/token: " + observation.exchanges.map(String.init).joined(separator: ", "))
        let withheld = observation.callback.withheld
        if !withheld.isEmpty, auditCase != .cookiesSlowPerson {
            evidence.append("cookies withheld by SameSite: " + withheld.map(\.label).joined(separator: ", "))
        }

        let signedIn = observation.signedIn.signedIn
        let body = observation.signedIn.body
        let exchanged = played.exchangeIsCaution && observation.exchanges.contains(200)
        let unfinished = learned.endings.unfinished(observation.callback)
        let gatewayStatuses = Self.gatewayAnswersAreClean.contains(auditCase) ? 502...504 : 0...0
        let serverError = observation.callback.hops.first { $0.status >= 500 && !gatewayStatuses.contains($0.status) }?.status
        let gatewayAnswer = observation.callback.hops.first { gatewayStatuses.contains($0.status) }.map { ", and answered \($0.status) as a gateway should" } ?? ""
        let timedOut: Bool = { if case .timedOut = observation.callback.end { return true } else { return false } }()
        let dropped: Bool = { if case .failed = observation.callback.end { return true } else { return false } }()
        let unclean = Self.answersCleanly.contains(auditCase) && (serverError != nil || timedOut || dropped)
        let uncleanText = timedOut ? "its callback did not answer in time"
            : dropped ? "its callback dropped the connection" : "its callback answered \(serverError.map(Self.describe) ?? "a 5xx")"

        let verdict: Verdict
        let seen: String
        switch rule.expectation {
        // An `.ask` case is judged from the request, never played; were one played, a sign-in would be its miss.
        case .refuse, .ask:
            let miss: Verdict = rule.missIsWarning || played.missIsWarning ? .warn : .fail
            if signedIn, let broken = played.brokenTokensMark, body.contains(broken) {
                (verdict, seen) = (miss, "signed in the person the broken token named")
            } else if signedIn, played.honestTokensMark != nil {
                (verdict, seen) = (.warn, "signed in the token endpoint's person without checking that both tokens name the same one")
            } else if signedIn, played.whichTokenUntold {
                (verdict, seen) = (.inconclusive, "signed a person in, but its signed-in page shows neither sub nor email, so whose token it took cannot be told")
            } else if signedIn {
                (verdict, seen) = (miss, "signed the person in")
            } else if exchanged {
                (verdict, seen) = (.warn, "did not sign in, but exchanged the code after receiving the broken token "
                                   + "(validate the front-channel id_token before using the code: OpenID Connect Core 1.0 section 3.3.2.8)")
            } else if let unfinished {
                (verdict, seen) = (.inconclusive, "signed no one in, but " + unfinished)
            } else if let caution = played.cautionIfRefused {
                (verdict, seen) = (.warn, caution)
            } else if unclean {
                verdict = .warn
                seen = "did not sign in, but \(uncleanText)"
            } else {
                verdict = .pass
                seen = "did not sign in" + gatewayAnswer
            }
        case .accept:
            if let forbidden = played.forbiddenEmail, body.contains(forbidden) {
                verdict = .fail
                seen = played.forbiddenSeen ?? (played.expectedEmail == nil ? "signed the person in with the user JSON's email, though the token has none"
                    : "signed the person in with the user JSON's email, not the token's")
            } else if signedIn, played.forbiddenEmail != nil, !played.pageShowsEmails, !(played.expectedEmail.map(body.contains) ?? false) {
                verdict = .skip
                seen = "signed the person in, but its signed-in page shows no email, so which one it took cannot be told"
            } else if signedIn {
                verdict = .pass
                seen = "signed the person in"
            } else if let unfinished {
                verdict = .inconclusive
                seen = "did not finish signing in: it " + unfinished
            } else {
                verdict = .fail
                seen = (observation.callback.hops.first.map { "did not sign in (its callback answered \($0.status))" } ?? "did not sign in")
                    + (auditCase == .cookiesSlowPerson && overHTTP ? Self.schemeNote : "")
            }
        case .ignore:
            let answered = observation.callback.finalStatus.map(String.init) ?? "nothing"
            if !signedIn {
                verdict = .fail
                seen = "acted on it: the session ended (it answered \(answered))"
            } else if auditCase != .notificationsReplay, observation.callback.finalStatus.map({ (200...299).contains($0) }) ?? false {
                verdict = .warn
                seen = "kept the session, but answered \(answered) as if it had accepted the notification"
            } else {
                verdict = .pass
                seen = "kept the session and answered \(answered)"
            }
        case .acknowledge:
            let answered = observation.callback.finalStatus.map(String.init) ?? "nothing"
            if !signedIn {
                verdict = .fail
                seen = "ended the session, as if the notification revoked the person's consent (it answered \(answered))"
            } else if !(observation.callback.finalStatus.map { (200...299).contains($0) } ?? false) {
                verdict = .warn
                seen = "kept the session, but answered \(answered), so Apple would send it again"
            } else {
                verdict = .pass
                seen = "kept the session and answered \(answered)"
            }
        case .act:
            let answered = observation.callback.finalStatus.map(String.init) ?? "nothing"
            let accepted = observation.callback.finalStatus.map { (200...299).contains($0) } ?? false
            if signedIn {
                verdict = .warn
                seen = "kept the session (it answered \(answered))"
            } else if !accepted {
                verdict = .warn
                seen = "ended the session but answered \(answered), so Apple would send it again"
            } else {
                verdict = .pass
                seen = "ended the session and answered \(answered)"
            }
        case .acceptOrRefuse:
            if let forbidden = played.forbiddenEmail, body.contains(forbidden) {
                verdict = .fail
                seen = played.forbiddenSeen ?? "signed the person in as someone else"
            } else if signedIn {
                verdict = .pass
                seen = "signed the person in when the answer came"
            } else if let unfinished {
                verdict = .inconclusive
                seen = "did not finish signing in: it " + unfinished
            } else if unclean {
                verdict = .warn
                seen = "did not sign in, and \(uncleanText)"
            } else {
                verdict = .pass
                seen = "refused cleanly" + gatewayAnswer
            }
        }
        return result(auditCase, verdict, seen: seen, evidence: evidence, missIsWarning: played.missIsWarning)
    }

    /// The result of `auditCase`: its rule's words and reference, and how much a miss weighs (a FAIL's is a must, a
    /// WARN's a should, and otherwise the rule's, or a should where how this relying party signs in makes it one).
    private func result(_ auditCase: AuditCase, _ verdict: Verdict, seen: String, evidence: [String], missIsWarning: Bool = false) -> CaseResult {
        let rule = auditCase.rule
        let severity: Severity = switch verdict {
        case .fail: .must
        case .warn: .should
        case .pass, .skip, .inconclusive: rule.missIsWarning || missIsWarning ? .should : .must
        }
        return CaseResult(id: auditCase.id, verdict: verdict, appleSide: rule.appleSide, expected: rule.rpMust, seen: seen, evidence: evidence,
                          severity: severity, reference: rule.reference)
    }
}

extension Judge {
    /// A 5xx status as what it says of the relying party: an unhandled error, or a gateway's deliberate answer.
    static func describe(_ status: Int) -> String {
        switch status {
        case 500: return "500 (an unhandled error)"
        case 502...504: return "\(status) (a gateway's answer, though Apple's side was up)"
        default: return String(status)
        }
    }
}

/// A page's text without its markup, cut short, for evidence.
enum PageText {
    static let limit = 200

    static func excerpt(_ page: String) -> String? {
        var text = ""
        var inTag = false
        for character in page.prefix(4096) {
            if character == "<" { inTag = true } else if character == ">" { inTag = false; text.append(" ") } else if !inTag { text.append(character) }
        }
        let entities = [("&quot;", "\""), ("&#39;", "'"), ("&#x27;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")]
        let decoded = entities.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
        let words = decoded.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !words.isEmpty else { return nil }
        return words.count <= limit ? words : String(words.prefix(limit)) + "…"
    }
}
