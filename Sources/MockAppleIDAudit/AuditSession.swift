import Foundation
import MockAppleID
import NIOCore

/// The steps every case is made of: a browser starts a sign-in at the relying party, the person
/// answers on Apple's side, Apple's answer reaches the return URL as a browser delivers it, and the
/// signed-in page tells whether the person is signed in.
struct AuditSession: Sendable {
    let configuration: AuditConfiguration
    let apple: AppleSide
    /// The built-in browser: every step's with `--browser builtin`, and the relying party's servers' posts (its iOS
    /// backend's, Apple's notifications) either way.
    let browser: AuditBrowser
    /// The real browser of `--browser chromium`, which then starts sign-ins, delivers Apple's answers and reads the
    /// signed-in page.
    var chromium: ChromiumBrowser?

    /// A browser session that has reached Apple's authorize endpoint.
    struct Attempt: Sendable {
        var jar: BrowserCookieJar
        /// The relying party's authorize request.
        let request: FormParameters
        /// How the browser got there.
        let start: AuditBrowser.Navigation
        /// The real browser's windows of this sign-in (nil in the built-in browser, and for a copy of another attempt).
        var windows: ChromiumBrowser.Windows?

        var clientID: String { request.first("client_id") ?? "" }
        var nonce: String? { request.first("nonce") }
        var sendsFrontChannelToken: Bool { request.first("response_type")?.split(separator: " ").contains("id_token") ?? false }
        /// Whether the request asks for the `email` scope (else Apple's tokens carry no email, nor its booleans).
        var asksForEmail: Bool { request.first("scope")?.split(separator: " ").contains("email") ?? false }
    }

    /// What the relying party did with one answer.
    struct Observation: Sendable {
        let callback: AuditBrowser.Navigation
        let signedIn: SignedInCheck
        /// The statuses of the code exchanges it made at `/auth/token` meanwhile.
        let exchanges: [Int]
        /// The page after Apple's answer (a base64 JPEG), in the real browser.
        var screenshot: String?
    }

    /// The signed-in page's answer.
    struct SignedInCheck: Sendable {
        let status: Int?
        let body: String
        /// 2xx, and showing the person when the learning step found how it shows them.
        let signedIn: Bool
    }

    /// Follows the start URL in a fresh browser until the relying party sends it to Apple's authorize endpoint.
    func begin() async throws(AuditFailure) -> Attempt {
        var jar = BrowserCookieJar()
        var windows: ChromiumBrowser.Windows?
        let start: AuditBrowser.Navigation
        if let chromium { (start, windows) = try await chromium.begin(configuration.startURL, jar: &jar) }
        else { start = await browser.navigate("GET", configuration.startURL, context: .sameSite, jar: &jar) }
        let authorize: URL
        switch start.end {
        case let .authorize(url): authorize = url
        case let .page(_, body):
            guard chromium == nil, let found = AuthorizeLink.find(in: body, serverBaseURL: apple.baseURL) else {
                throw AuditFailure("the start URL never reached Apple's authorize endpoint at \(apple.baseURL.absoluteString)/auth/authorize (\(start.summary)); "
                                   + "is the relying party configured with this server? If its sign-in begins with a button (a form's POST, or JavaScript), "
                                   + "audit it with --browser chromium --click SELECTOR")
            }
            authorize = found
        case .offsite(let url):
            throw AuditFailure("the start URL led to \(url.absoluteString), which is neither the relying party nor this server (\(start.summary)); "
                               + "is the relying party configured with \(apple.baseURL.absoluteString)?")
        case .tooManyRedirects, .timedOut, .failed:
            throw AuditFailure("the start URL did not lead to Apple's authorize endpoint: \(start.summary)")
        }
        let request: FormParameters
        do { request = try FormParameters(urlEncoded: authorize.query ?? "") } catch {
            throw AuditFailure("the relying party's authorize request cannot be read: \(error)")
        }
        // Apple's answer goes to the return URL: only one on the relying party's own host is ever posted to.
        let returnURL = request.first("redirect_uri") ?? ""
        guard let target = URL(string: returnURL), browser.scope.mayVisit(target) else {
            throw AuditFailure("the relying party asks Apple to answer at \"\(returnURL)\", which is not on its own host "
                               + "(\(configuration.startURL.host ?? "")); the audit posts codes and tokens only to the relying party it was given")
        }
        return Attempt(jar: jar, request: request, start: start, windows: windows)
    }

    /// Apple's answer to the attempt's request as `person` gives it.
    func answer(_ attempt: Attempt, as person: AppleSide.Person) throws(AuditFailure) -> AuthorizationDelivery {
        do { return try apple.answer(attempt.request, as: person) } catch {
            throw AuditFailure("Apple's side refused the relying party's authorize request: \(error.code.rawValue) (\(error.reason))")
        }
    }

    /// Delivers `fields` to the return URL as a browser does after the person spent `dwell` seconds on
    /// Apple's page: a cross-site form_post, or a cross-site GET for `response_mode=query`.
    func deliver(_ fields: [FormParameters.Pair], of delivery: AuthorizationDelivery, attempt: inout Attempt,
                 dwell: TimeInterval? = nil, timeout: TimeAmount = .seconds(15)) async -> AuditBrowser.Navigation {
        attempt.jar.pass(dwell ?? configuration.secondsOnApplesPage)
        // Apple's answer with the case's fields, which gives the query URL and the popup's message as Apple's side does.
        let answer = AuthorizationDelivery(redirectURI: delivery.redirectURI, mode: delivery.mode, fields: FormParameters(fields))
        guard let redirect = URL(string: delivery.redirectURI) else { return AuditBrowser.Navigation(end: .failed("the return URL is not a URL")) }
        let byGET = delivery.mode == .query
        let target = byGET ? answer.redirectLocation.flatMap(URL.init(string:)) ?? redirect : redirect
        if let chromium, delivery.mode == .webMessage {
            guard let windows = attempt.windows else { return AuditBrowser.Navigation(end: .failed("no page waits for Apple's answer")) }
            return await chromium.deliverMessage(answer.webMessage, origin: answer.webMessageOrigin, windows: windows, jar: &attempt.jar, timeout: timeout)
        }
        if let chromium {
            return await chromium.deliver(answer.fields, to: target, byGET: byGET, in: attempt.windows?.authorize, jar: &attempt.jar, timeout: timeout)
        }
        if byGET { return await browser.navigate("GET", target, context: .crossSite(method: "GET"), jar: &attempt.jar, timeout: timeout) }
        return await browser.navigate("POST", redirect, form: answer.fields.urlEncoded, context: .crossSite(method: "POST"), jar: &attempt.jar, timeout: timeout)
    }

    /// Asks the signed-in page, as the relying party's own page would (same-site), whether `jar` is signed in:
    /// 2xx, and showing one of `needles` (any page, when there are none).
    func checkSignedIn(_ jar: inout BrowserCookieJar, needles: [String]) async -> SignedInCheck {
        let page = if let chromium { await chromium.visit(configuration.signedInURL, jar: &jar) }
            else { await browser.navigate("GET", configuration.signedInURL, context: .sameSite, jar: &jar) }
        let status = page.finalStatus
        let success = status.map { (200...299).contains($0) } ?? false
        let shows = needles.isEmpty || needles.contains { page.finalBody.contains($0) }
        return SignedInCheck(status: status, body: page.finalBody, signedIn: success && shows)
    }

    /// Delivers `fields`, then asks the signed-in page; the code exchanges made meanwhile are counted. An exchange
    /// is journalled when it is answered: with `answersWithin` (a token endpoint that answers that many seconds
    /// late), one the relying party gave up on before its answer is waited for until then.
    func observe(_ fields: [FormParameters.Pair], of delivery: AuthorizationDelivery, attempt: inout Attempt, needles: [String],
                 dwell: TimeInterval? = nil, timeout: TimeAmount = .seconds(15), answersWithin: TimeInterval? = nil) async -> Observation {
        let mark = apple.journalMark()
        let started = ContinuousClock.now
        let callback = await deliver(fields, of: delivery, attempt: &attempt, dwell: dwell, timeout: timeout)
        let screenshot = await chromium?.screenshot()
        let check = await checkSignedIn(&attempt.jar, needles: needles)
        var exchanges = apple.codeExchanges(clientID: attempt.clientID, after: mark)
        if let answersWithin, exchanges.isEmpty {
            let deadline = started + .seconds(answersWithin + 2)
            while exchanges.isEmpty, ContinuousClock.now < deadline, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                exchanges = apple.codeExchanges(clientID: attempt.clientID, after: mark)
            }
        }
        return Observation(callback: callback, signedIn: check, exchanges: exchanges, screenshot: screenshot)
    }
}

/// Finds a link to the authorize endpoint on a relying party's page (a button that is a link or a form
/// rather than a redirect).
enum AuthorizeLink {
    static func find(in page: String, serverBaseURL: URL) -> URL? {
        let prefix = serverBaseURL.absoluteString.hasSuffix("/") ? serverBaseURL.absoluteString + "auth/authorize" : serverBaseURL.absoluteString + "/auth/authorize"
        guard let start = page.range(of: prefix) else { return nil }
        let tail = page[start.lowerBound...].prefix { !"\"'<> \n".contains($0) }
        return URL(string: tail.replacingOccurrences(of: "&amp;", with: "&"))
    }
}
