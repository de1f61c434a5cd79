import Foundation
import MockAppleID

/// What to audit and how.
public struct AuditConfiguration: Sendable {
    /// The relying party's sign-in start URL: the link behind its "Sign in with Apple" button.
    public var startURL: URL
    /// A page of the relying party that answers 2xx only to a signed-in session (and shows the user).
    public var signedInURL: URL
    /// The persona who signs in.
    public var persona: String
    /// The cases to run, in this order.
    public var cases: [AuditCase]
    /// Seconds the person spends on Apple's page in an ordinary case (``AuditCase/cookiesSlowPerson``
    /// spends three minutes); simulated by the cookie jar's clock, never waited for.
    public var secondsOnApplesPage: TimeInterval
    /// The relying party's iOS backend, when it has one: where its app posts the identity token.
    public var native: NativeBackend?
    /// The relying party's server-to-server notification endpoint, when it has one.
    public var notificationsURL: URL?
    /// The addresses the audit may send requests to (a server sets its `--audit-targets`).
    public var targets = AuditTargets.any
    /// The address each host is reached at, checked already (``Audit/checkTargets(_:)``); nil: the run checks.
    public var pins: [String: String]?
    /// Certificate authorities the audit's browser trusts besides the system's, in PEM, for a relying party served
    /// over https with a certificate of its own (`--ca`).
    public var trustedCertificates: String?
    /// The local certificate authority's certificate (PEM), trusted besides those: `mock-appleid tls issue` gives a
    /// relying party on this machine a certificate from it. It may vouch only for localhost and Apple's host names.
    public var localCertificateAuthority: String?
    /// Drive a real Chromium with these options (`--browser chromium`); nil: the built-in browser.
    public var chromium: ChromiumOptions?

    /// What to audit: the relying party's start and signed-in pages; by default the persona `jane`, every case,
    /// five seconds on Apple's page, and neither an iOS backend nor a notification endpoint.
    public init(startURL: URL, signedInURL: URL, persona: String = "jane", cases: [AuditCase] = AuditCase.allCases,
                secondsOnApplesPage: TimeInterval = 5, native: NativeBackend? = nil, notificationsURL: URL? = nil) {
        self.startURL = startURL
        self.signedInURL = signedInURL
        self.persona = persona
        self.cases = cases
        self.secondsOnApplesPage = secondsOnApplesPage
        self.native = native
        self.notificationsURL = notificationsURL
    }
}

/// An iOS app's backend: the URL its app posts to after Sign in with Apple, and the body it posts.
public struct NativeBackend: Sendable {
    /// The placeholders a body template may use.
    public static let placeholders = ["{identity_token}", "{authorization_code}", "{nonce}", "{user}"]
    /// A JSON body with the credential's fields, as many apps post it.
    public static let defaultBody = #"{"identityToken":"{identity_token}","authorizationCode":"{authorization_code}","nonce":"{nonce}"}"#

    /// Where the app posts.
    public var url: URL
    /// The body, with ``placeholders`` for the identity token, the authorization code, the raw nonce the
    /// app made and the `sub`; sent as JSON when it starts with `{`, as a form otherwise.
    public var bodyTemplate: String
    /// The app passes the SHA-256 (hex) of its raw nonce to Apple, so the token carries the hash (as
    /// Firebase's samples do); otherwise the raw nonce itself.
    public var hashesNonce: Bool
    /// The app's bundle ID; nil takes the first bundle ID of the web client's team.
    public var bundleID: String?

    /// A backend at `url` that takes `bodyTemplate` (JSON with the credential's fields by default).
    public init(url: URL, bodyTemplate: String = NativeBackend.defaultBody, hashesNonce: Bool = false, bundleID: String? = nil) {
        self.url = url
        self.bodyTemplate = bodyTemplate
        self.hashesNonce = hashesNonce
        self.bundleID = bundleID
    }
}

/// Why the audit could not run (the command's exit status is then 2): its inputs, or a relying party
/// whose honest sign-in does not succeed, explained in plain words.
public struct AuditFailure: Error, Sendable, CustomStringConvertible {
    /// Why, in plain words.
    public let description: String

    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}

/// Runs the audit: plays Apple's side of each case against a relying party and judges what it does.
public enum Audit {
    /// Runs the learning step, then every case of `configuration`; `progress` hears one line as each
    /// case starts and ends.
    public static func run(_ configuration: AuditConfiguration, apple: AppleSide,
                           progress: @Sendable (String) -> Void = { _ in }) async throws(AuditFailure) -> AuditReport {
        try check(configuration, apple: apple)
        let pins: [String: String]
        if let checked = configuration.pins { pins = checked } else { pins = try await checkTargets(configuration) }
        let browser = try AuditBrowser(scope: .init(start: configuration.startURL, server: apple.baseURL), pins: pins,
                                       trusting: configuration.trustedCertificates, localCA: configuration.localCertificateAuthority)
        let began = ContinuousClock.now
        let outcome: Result<(learned: [String], cases: [CaseResult]), AuditFailure>
        var chromium: ChromiumBrowser?
        do throws(AuditFailure) {
            var session = AuditSession(configuration: configuration, apple: apple, browser: browser)
            if let options = configuration.chromium {
                progress("starting Chromium")
                chromium = try await ChromiumBrowser.launch(options, scope: browser.scope, server: apple.baseURL, pins: pins)
                session.chromium = chromium
            }
            progress("learning: an honest sign-in and a cancelled one")
            let learned = try await LearningStep.run(session)
            let runner = CaseRunner(session: session, learned: learned)
            var results: [CaseResult] = []
            for (index, auditCase) in configuration.cases.enumerated() {
                // A cancelled audit (its caller went away) stops between cases.
                guard !Task.isCancelled else { throw AuditFailure("the audit was stopped before \(auditCase.id)") }
                progress("[\(index + 1)/\(configuration.cases.count)] \(auditCase.id)")
                let started = ContinuousClock.now
                var result = try await runner.run(auditCase)
                result.seconds = Self.seconds(since: started)
                progress("[\(index + 1)/\(configuration.cases.count)] \(auditCase.id): \(result.verdict.rawValue)")
                results.append(result)
            }
            outcome = .success((learned.summary, results))
        } catch {
            outcome = .failure(error)
        }
        await chromium?.quit()
        await browser.shutdown()
        // The signing keys and notification URLs the audit changed are put back however it ended.
        let unrestored = apple.restore().map { "not put back: " + $0 }
        switch outcome {
        case let .success((learned, cases)):
            return AuditReport(learned: learned + unrestored, cases: cases, start: configuration.startURL, signedIn: configuration.signedInURL,
                               seconds: Self.seconds(since: began))
        case let .failure(failure):
            throw unrestored.isEmpty ? failure : AuditFailure(([failure.description] + unrestored).joined(separator: "; "))
        }
    }

    /// The seconds since `instant`, to the millisecond.
    private static func seconds(since instant: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - instant
        return ((Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * 1000).rounded() / 1000
    }

    /// Refuses what cannot be audited before any request is sent: URLs that are not http(s), a signed-in
    /// page on another host than the start URL, a persona the scenario does not have, no case. ``run(_:apple:progress:)``
    /// checks first; a caller that answers before the audit runs (the admin API) checks too.
    public static func check(_ configuration: AuditConfiguration, apple: AppleSide) throws(AuditFailure) {
        for (name, url) in targetURLs(configuration) {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
                throw AuditFailure("\(name) must be an http or https URL, not \"\(url.absoluteString)\"")
            }
        }
        guard configuration.signedInURL.host?.lowercased() == configuration.startURL.host?.lowercased() else {
            throw AuditFailure("--signed-in must be on the relying party's host (\(configuration.startURL.host ?? "")), not \(configuration.signedInURL.host ?? "")")
        }
        guard apple.provider.persona(configuration.persona) != nil else {
            throw AuditFailure("the scenario has no persona \"\(configuration.persona)\"")
        }
        guard configuration.persona != AppleSide.freshPersonaID else {
            throw AuditFailure("the persona \(AppleSide.freshPersonaID) is the one the audit makes anew for its cases; choose another --persona")
        }
        guard !configuration.cases.isEmpty else { throw AuditFailure("no case selected") }
        // Chromium loads Apple's authorize page, which such a scenario answers by itself before the audit can.
        if configuration.chromium != nil, let auto = apple.provider.autoApprove() {
            throw AuditFailure("the scenario approves every sign-in as \(auto.persona) (autoApprove), so Apple's page answers in Chromium before "
                               + "the audit can; audit with a scenario without autoApprove")
        }
    }

    /// Refuses, before anything is sent, a URL whose host is an address the audit may not reach
    /// (``AuditConfiguration/targets``), and returns the address each host is to be reached at (for
    /// ``AuditConfiguration/pins``; ``run(_:apple:progress:)`` checks itself when they are not given). The iOS
    /// backend and the notification endpoint may be on other hosts than the start URL (an API host is common), and
    /// are held to the same rule.
    public static func checkTargets(_ configuration: AuditConfiguration) async throws(AuditFailure) -> [String: String] {
        try await configuration.targets.pin(targetURLs(configuration))
    }

    /// Every URL the audit is given, named by its command-line option.
    static func targetURLs(_ configuration: AuditConfiguration) -> [(name: String, url: URL)] {
        [("--start", configuration.startURL), ("--signed-in", configuration.signedInURL)]
            + [configuration.native.map { ("--native", $0.url) }, configuration.notificationsURL.map { ("--notifications", $0) }].compactMap { $0 }
    }
}
