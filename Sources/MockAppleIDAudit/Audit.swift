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

    public init(startURL: URL, signedInURL: URL, persona: String = "jane", cases: [AuditCase] = AuditCase.allCases,
                secondsOnApplesPage: TimeInterval = 5) {
        self.startURL = startURL
        self.signedInURL = signedInURL
        self.persona = persona
        self.cases = cases
        self.secondsOnApplesPage = secondsOnApplesPage
    }
}

/// Why the audit could not run (the command's exit status is then 2): its inputs, or a relying party
/// whose honest sign-in does not succeed, explained in plain words.
public struct AuditFailure: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// Runs the audit: plays Apple's side of each case against a relying party and judges what it does.
public enum Audit {
    /// Runs the learning step, then every case of `configuration`; `progress` hears one line as each
    /// case starts and ends.
    public static func run(_ configuration: AuditConfiguration, apple: AppleSide,
                           progress: @Sendable (String) -> Void = { _ in }) async throws(AuditFailure) -> AuditReport {
        try check(configuration, apple: apple)
        let browser = AuditBrowser(scope: .init(rpHost: configuration.startURL.host?.lowercased() ?? "",
                                                serverAuthority: AuditBrowser.Scope.authority(apple.baseURL)))
        do {
            let session = AuditSession(configuration: configuration, apple: apple, browser: browser)
            progress("learning: an honest sign-in and a cancelled one")
            let learned = try await LearningStep.run(session)
            let runner = try CaseRunner(session: session, learned: learned)
            var results: [CaseResult] = []
            for (index, auditCase) in configuration.cases.enumerated() {
                progress("[\(index + 1)/\(configuration.cases.count)] \(auditCase.id)")
                let result = await runner.run(auditCase)
                progress("[\(index + 1)/\(configuration.cases.count)] \(auditCase.id): \(result.verdict.rawValue)")
                results.append(result)
            }
            await browser.shutdown()
            return AuditReport(learned: learned.summary, cases: results)
        } catch {
            await browser.shutdown()
            throw error
        }
    }

    /// Refuses what cannot be audited before any request is sent: URLs that are not http(s), a signed-in
    /// page on another host than the start URL, a persona the scenario does not have.
    private static func check(_ configuration: AuditConfiguration, apple: AppleSide) throws(AuditFailure) {
        for (name, url) in [("--start", configuration.startURL), ("--signed-in", configuration.signedInURL)] {
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
        guard !configuration.cases.isEmpty else { throw AuditFailure("no case selected") }
    }
}
