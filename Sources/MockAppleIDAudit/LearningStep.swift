import Foundation
import MockAppleID

/// What an honest sign-in and a cancelled one look like at this relying party: the yardstick every
/// case is judged against.
struct Learned: Sendable {
    /// The relying party's authorize request in the honest sign-in.
    let request: FormParameters
    /// What the signed-in page shows of the person: their `sub`, their email, or nothing (then the
    /// page's status alone tells).
    let shows: Shows
    /// Whether the honest sign-in exchanged the code at `/auth/token` (else the token endpoint's cases do not apply).
    let exchangesCode: Bool
    /// Whether the signed-in page answers 2xx to a browser with no session (then only what it shows tells).
    let anonymousPageAnswers2xx: Bool
    /// Whether the signed-in page showed the person's email (whatever else it showed).
    let showsEmail: Bool
    /// The pages a sign-in ends on: where it tells a refusal from a sign-in that stopped half-way.
    let endings: Endings
    /// How the relying party uses the identity token that comes with the code.
    let frontChannel: FrontChannelUse
    /// What the front-channel probe saw.
    let frontChannelEvidence: [String]
    let summary: [String]

    enum Shows: Sendable { case subject, email, nothing }

    /// The pages a sign-in ends on, besides the signed-in page.
    struct Endings: Sendable {
        /// The paths of the 2xx pages a refused sign-in may end on: where the learning step's refused sign-ins (a
        /// cancel, a code Apple's side refuses) ended on a 2xx page, the start page's and the site's root.
        let refusalPaths: Set<String>
        /// The signed-in page's path.
        let signedInPath: String

        init(configuration: AuditConfiguration, refusals: [AuditBrowser.Navigation]) {
            var paths: Set<String> = [Self.path(configuration.startURL), "/"]
            for refusal in refusals {
                if let status = refusal.finalStatus, (200...299).contains(status), let path = refusal.finalPath { paths.insert(path) }
            }
            let signedIn = Self.path(configuration.signedInURL)
            paths.remove(signedIn)
            signedInPath = signedIn
            refusalPaths = paths
        }

        /// Where a callback that signed no one in stopped, when that is a 2xx page that is neither the signed-in page
        /// nor one a refused sign-in ends on (a sign-up form, say): then it is not a refusal, and the case cannot be told.
        func unfinished(_ callback: AuditBrowser.Navigation) -> String? {
            guard let status = callback.finalStatus, (200...299).contains(status), let path = callback.finalPath,
                  path != signedInPath, !refusalPaths.contains(path) else { return nil }
            let text = PageText.excerpt(callback.finalBody).map { ": \($0)" } ?? ""
            return "stopped at a \(status) page at \(path), which is neither the signed-in page nor where it ends a refused sign-in\(text)"
        }

        private static func path(_ url: URL) -> String { url.path.isEmpty ? "/" : url.path }
    }
}

/// The learning step: one honest sign-in, which must succeed (or the audit explains why it did not and
/// stops), and one cancelled one.
enum LearningStep {
    static func run(_ session: AuditSession) async throws(AuditFailure) -> Learned {
        let persona = session.configuration.persona
        var empty = BrowserCookieJar()
        let before = await session.checkSignedIn(&empty, needles: [])

        var attempt = try await session.begin()
        let request = attempt.request
        let startCookies = attempt.jar.cookies.map(\.label)
        // The audit posts notifications itself: revoking consent between cases must not send one of Apple's.
        let unrouted = session.apple.stopNotifications(app: attempt.clientID)
        session.apple.forget(persona: persona, clientID: attempt.clientID)
        let delivery = try session.answer(attempt, as: .approve(persona: persona, emailChoice: .share))
        guard delivery.mode == .formPost || delivery.mode == .query || (delivery.mode == .webMessage && session.chromium != nil) else {
            throw AuditFailure("the relying party asks for response_mode=\(delivery.mode.rawValue), which only a page's script can read; "
                               + "the built-in browser drives relying parties that receive Apple's answer on their server (form_post or query): "
                               + (delivery.mode == .webMessage ? "audit it with --browser chromium" : "a fragment never reaches a server"))
        }
        let honest = await session.observe(delivery.fields.pairs, of: delivery, attempt: &attempt, needles: [])
        guard honest.signedIn.signedIn else {
            let console = (try? await session.chromium?.consoleErrors()).flatMap { $0.isEmpty ? nil : $0 }
            throw AuditFailure("the honest sign-in did not succeed: " + explain(honest, attempt: attempt, session: session)
                               + (console.map { "; the page's console logged: " + $0.joined(separator: " | ") } ?? ""))
        }
        let shows = shows(honest.signedIn.body, session: session, clientID: attempt.clientID, token: delivery["id_token"])
        if shows == .nothing, before.signedIn {
            throw AuditFailure("the signed-in page answers \(before.status ?? 0) to a browser with no session and does not show the person after a sign-in, "
                               + "so the audit cannot tell signed in from not; give a --signed-in page that answers 2xx only to a signed-in session")
        }

        var cancelled = try await session.begin()
        let cancelDelivery = try session.answer(cancelled, as: .cancel)
        let cancel = await session.observe(cancelDelivery.fields.pairs, of: cancelDelivery, attempt: &cancelled, needles: [])
        let refused = honest.exchanges.isEmpty ? nil : try await refusedCode(session)
        let endings = Learned.Endings(configuration: session.configuration, refusals: [cancel.callback] + [refused?.callback].compactMap { $0 })
        let probe: (use: FrontChannelUse, evidence: [String])
        if session.configuration.cases.contains(where: \.dependsOnFrontChannelUse) {
            probe = try await session.probeFrontChannel(shows: shows, unfinished: endings.unfinished)
        } else {
            probe = (attempt.sendsFrontChannelToken ? .unknown("not probed: no selected case depends on it") : .notAsked, [])
        }

        let showing: String
        switch shows {
        case .subject: showing = "it shows the person's sub"
        case .email: showing = "it shows the person's email"
        case .nothing: showing = "it does not show the person's sub or email, so its status alone tells"
        }
        var summary = [
            "start: \(attempt.start.summary); cookies set: \(startCookies.isEmpty ? "none" : startCookies.joined(separator: ", "))",
            "authorize request: " + describe(request),
            "honest sign-in: \(honest.callback.summary); signed-in page \(honest.signedIn.status ?? 0): \(showing)",
            "cancelled sign-in: \(cancel.callback.summary); signed-in page \(cancel.signedIn.status ?? 0)",
        ]
        if let refused {
            summary.append("sign-in whose code Apple's side refuses (invalid_grant): \(refused.callback.summary); signed-in page \(refused.signedIn.status ?? 0)")
        }
        switch probe.use {
        case .notAsked: break
        case .validated: summary.append("front-channel id_token: it refused one with a broken signature naming another person, so it reads it")
        case .ignored: summary.append("front-channel id_token: it signed the token endpoint's person in despite a broken one naming another person, "
                                      + "so it never validates it (id_token.unvalidated)")
        case .trusted: summary.append("front-channel id_token: it took the person, or their email, from a broken one (id_token.unvalidated)")
        case let .unknown(reason): summary.append("front-channel id_token: how it is used cannot be told: \(reason)")
        }
        if let unrouted { summary.append("the scenario's notification URL \(unrouted) gets no notification from Apple's side during the audit") }
        if let native = session.configuration.native {
            summary.append(try await honestNative(native, session: session, webClientID: attempt.clientID))
        }
        let email = email(session: session, token: delivery["id_token"])
        return Learned(request: request, shows: shows, exchangesCode: !honest.exchanges.isEmpty, anonymousPageAnswers2xx: before.signedIn,
                       showsEmail: email.map(honest.signedIn.body.contains) ?? false, endings: endings, frontChannel: probe.use,
                       frontChannelEvidence: probe.evidence, summary: summary)
    }

    /// A sign-in whose code exchange Apple's side answers with invalid_grant: where the relying party ends a sign-in
    /// it refuses for a reason of its own (besides a cancel), so that a case ending there is told a refusal.
    private static func refusedCode(_ session: AuditSession) async throws(AuditFailure) -> AuditSession.Observation {
        var attempt = try await session.begin()
        let delivery = try session.answer(attempt, as: .approve(persona: session.configuration.persona, emailChoice: .share))
        session.apple.queue(.tokenError(.invalidGrant), clientID: attempt.clientID, count: nil)
        defer { session.apple.clearFaults() }
        return await session.observe(delivery.fields.pairs, of: delivery, attempt: &attempt, needles: [])
    }

    /// An honest native sign-in, which the backend must accept (2xx).
    private static func honestNative(_ native: NativeBackend, session: AuditSession, webClientID: String) async throws(AuditFailure) -> String {
        let bundleID = try session.bundleID(native, webClientID: webClientID)
        let posted = await session.postNative(native, try session.nativeCredential(native, bundleID: bundleID))
        guard posted.signedIn.signedIn else {
            let page = PageText.excerpt(posted.callback.finalBody).map { ": \($0)" } ?? ""
            throw AuditFailure("the iOS backend refused an honest identity token for \(bundleID) (\(posted.callback.summary))\(page)")
        }
        return "honest native sign-in (bundle ID \(bundleID)): \(posted.callback.summary)"
    }

    private static func shows(_ body: String, session: AuditSession, clientID: String, token: String?) -> Learned.Shows {
        if let sub = session.apple.subject(persona: session.configuration.persona, clientID: clientID), body.contains(sub) { return .subject }
        if let email = email(session: session, token: token), body.contains(email) { return .email }
        return .nothing
    }

    /// The person's email as the honest sign-in gave it: the front-channel token's, else the persona's.
    private static func email(session: AuditSession, token: String?) -> String? {
        token.flatMap(TokenForgery.claims(of:))?["email"]?.stringValue ?? session.apple.provider.persona(session.configuration.persona)?.email
    }

    private static func describe(_ request: FormParameters) -> String {
        let names = ["client_id", "redirect_uri", "response_type", "response_mode", "scope"]
        var parts = names.compactMap { name in request.first(name).map { "\(name)=\($0)" } }
        parts.append("state: \(request.first("state") == nil ? "none" : "sent")")
        parts.append("nonce: \(request.first("nonce") == nil ? "none" : "sent")")
        parts.append("PKCE: \(request.first("code_challenge") == nil ? "no" : "yes")")
        return parts.joined(separator: ", ")
    }

    /// Why an honest sign-in failed, in plain words: the likeliest cause first.
    static func explain(_ observation: AuditSession.Observation, attempt: AuditSession.Attempt, session: AuditSession) -> String {
        let callback = observation.callback
        var reasons: [String] = []
        if let withheld = callback.hops.first?.withheld, !withheld.isEmpty {
            reasons.append("the browser withheld the relying party's cookie \(withheld.map(\.label).joined(separator: ", ")) from Apple's cross-site form_post "
                           + "(SameSite), so the relying party never got its state back; mark it SameSite=None; Secure")
        }
        if !attempt.jar.refused.isEmpty {
            reasons.append("the browser refused the relying party's cookie: \(attempt.jar.refused.joined(separator: "; "))")
        }
        switch callback.end {
        case .timedOut: reasons.append("the return URL did not answer within 15 seconds")
        case let .failed(reason): reasons.append(reason)
        case let .offsite(url): reasons.append("the callback redirected to \(url.absoluteString), another host")
        case .tooManyRedirects: reasons.append("the callback redirected more than \(AuditBrowser.maxRedirects) times")
        case .page, .authorize: break
        }
        if let status = callback.hops.first?.status, status >= 500 { reasons.append("the return URL answered \(status)") }
        if let status = callback.finalStatus, status >= 400, let text = PageText.excerpt(callback.finalBody) {
            reasons.append("its page says: \(text)")
        }
        if observation.exchanges.isEmpty, !attempt.sendsFrontChannelToken {
            reasons.append("the relying party never exchanged the code at /auth/token")
        }
        if let failed = session.apple.provider.journal.entries().last(where: { $0.endpoint == AppleEndpoint.token.rawValue && $0.status != 200 }),
           !observation.exchanges.isEmpty, observation.exchanges.allSatisfy({ $0 != 200 }) {
            reasons.append("its code exchange was refused: \(failed.error ?? String(failed.status)) (\(failed.reason))")
        }
        let check = observation.signedIn
        reasons.append("after the callback (\(callback.summary)) the signed-in page answered \(check.status.map(String.init) ?? "nothing")")
        return reasons.joined(separator: "; ")
    }
}
