import Foundation
import MockAppleID
import NIOCore

/// How the audit drives a real Chromium (`--browser chromium`).
public struct ChromiumOptions: Sendable {
    /// A CSS selector of the element to click on the start page to begin sign-in; nil: the start URL is the sign-in link.
    public var click: String?
    /// The chromedriver executable; nil finds `chromedriver` on `PATH`.
    public var chromedriver: String?
    /// The Chromium executable; nil finds `chromium` on `PATH`.
    public var chromium: String?

    /// Options with the start page's `click` selector, if any, and the executables found on `PATH` unless given.
    public init(click: String? = nil, chromedriver: String? = nil, chromium: String? = nil) {
        self.click = click
        self.chromedriver = chromedriver
        self.chromium = chromium
    }
}

/// The real browsers the audits of this process started.
public enum ChromiumProcesses {
    /// Kills every chromedriver an audit started and the Chromium it runs, at once: for a command that a signal
    /// interrupts, which exits without ending its audits.
    public static func endAll() { ChromeDriver.endAll() }
}

/// The audit's real browser: headless Chromium through chromedriver. The relying party's pages run their JavaScript
/// and Chromium applies its own cookie rules; the attempt's cookies stay in its ``BrowserCookieJar``, put into the
/// browser before each step and read back after it, so that a case can keep, copy or drop a browser's state as it
/// does with the built-in browser. Apple's pages come from another site than the relying party's: the mock server under
/// ``appleSiteName``, which Chromium's host rules lead to the server's address, whatever host both are on.
final class ChromiumBrowser: Sendable {
    /// The name Apple's side is reached by in the real browser (the `.test` top-level domain is never a real site's).
    static let appleSiteName = "appleid.apple.test"
    /// How long a click may take to bring a window to Apple's authorize endpoint.
    static let authorizeWait: Duration = .seconds(10)
    /// The most windows kept open: each sign-in's page stays open until its answer has come (a case may start a second
    /// sign-in before it delivers to the first).
    static let windowLimit = 8

    /// The windows of one sign-in: the relying party's page, and the window at Apple's authorize endpoint (the same
    /// one, or a popup the page opened), with the status the page was loaded with.
    struct Windows: Sendable {
        let page: String
        let authorize: String
        let pageStatus: Int
    }

    let driver: ChromeDriver
    let scope: AuditBrowser.Scope
    /// The mock server's base URL on Apple's own site.
    let appleSite: URL
    /// The mock server's base URL as the relying party reaches it.
    let server: URL
    let click: String?

    private init(driver: ChromeDriver, scope: AuditBrowser.Scope, server: URL, appleSite: URL, click: String?) {
        self.driver = driver
        self.scope = scope
        self.server = server
        self.appleSite = appleSite
        self.click = click
    }

    /// Starts Chromium for an audit in `scope` through the mock server at `server`, reaching each of `pins`' hosts at its
    /// checked address and no other host.
    static func launch(_ options: ChromiumOptions, scope: AuditBrowser.Scope, server: URL, pins: [String: String]) async throws(AuditFailure) -> ChromiumBrowser {
        let serverHost = server.host ?? "127.0.0.1"
        let reachable = ["0.0.0.0", "::", "[::]"].contains(serverHost) ? "127.0.0.1" : serverHost
        // Apple's site leads to the server; the relying party's hosts to their checked addresses; every other name nowhere.
        let rules = ["MAP \(appleSiteName) \(bracketed(reachable))"] + pins.sorted { $0.key < $1.key }.map { "MAP \($0.key) \(bracketed($0.value))" }
            + ["MAP * ~NOTFOUND", "EXCLUDE \(bracketed(reachable))"]
        let driver = try await ChromeDriver.launch(driver: options.chromedriver, chromium: options.chromium,
                                                   arguments: ["--host-resolver-rules=\(rules.joined(separator: ", "))"])
        var site = URLComponents(url: server, resolvingAgainstBaseURL: false) ?? URLComponents()
        site.host = appleSiteName
        return ChromiumBrowser(driver: driver, scope: scope, server: server, appleSite: site.url ?? server, click: options.click)
    }

    /// Ends the browser and its driver.
    func quit() async { await driver.quit() }

    /// Runs `action` (which navigates, and returns the network events it read itself) in `window` within `timeout`, and
    /// reads what it did from the window's network log (its requests of `kinds`), the page and the cookies, which go back
    /// to `jar` (those of `aged` put in as `Lax` for their age keep no `SameSite`). When no document was answered, the page
    /// stayed as it was: `stayed` is its status (nil: nothing was loaded). A command that fails ends the navigation
    /// `.failed`, after the log and the cookies were read.
    func step(in window: String, jar: inout BrowserCookieJar, aged: Set<String> = [], timeout: TimeAmount, kinds: Set<String> = NetworkLog.documents,
              stayed: Int? = nil, _ action: @Sendable () async throws -> [JSONValue]) async -> AuditBrowser.Navigation {
        var problem: ChromeDriver.CommandError?
        var events: [JSONValue] = []
        do {
            try await driver.command(.POST, "/timeouts", .object([("pageLoad", .int(max(1000, timeout.nanoseconds / 1_000_000)))]))
            _ = try await driver.performanceLog()
            events = try await action()
        } catch {
            problem = error as? ChromeDriver.CommandError ?? ChromeDriver.CommandError(code: "unknown error", message: "\(error)")
        }
        let log = NetworkLog(events + ((try? await driver.performanceLog(of: window)) ?? []), kinds: kinds) { json in
            DevToolsCookies.cookie(json).map { Self.unforced($0, aged: aged) }
        }
        var navigation = AuditBrowser.Navigation(hops: log.hops)
        try? await readCookies(into: &jar, refused: log.refused, aged: aged)
        if let problem {
            navigation.end = problem.code == "timeout" ? .timedOut : .failed("Chromium: \(problem)")
            _ = try? await driver.execute("window.stop();")
            return navigation
        }
        let current = (try? await driver.command(.GET, "/url"))?.stringValue.flatMap(URL.init(string:))
        navigation.pageURL = current
        if let failed = log.failed {
            if failed.error.contains("ERR_TOO_MANY_REDIRECTS") { navigation.end = .tooManyRedirects }
            else if failed.error.contains("ERR_NAME_NOT_RESOLVED"), !scope.mayVisit(failed.url) { navigation.end = .offsite(failed.url) }
            else { navigation.end = .failed("\(failed.url.absoluteString): \(failed.error)") }
        } else if let current, scope.isAuthorize(current) {
            navigation.end = .authorize(current)
        } else if let status = log.documentStatus ?? stayed {
            let body = (try? await driver.execute("return document.documentElement ? document.documentElement.outerHTML : '';"))?.stringValue ?? ""
            navigation.end = .page(status: status, body: String(body.prefix(AuditBrowser.bodyLimit)))
        } else {
            navigation.end = .failed("no page was loaded")
        }
        return navigation
    }

    /// The current page as a JPEG (base64), small enough for a report of every case; nil when Chromium cannot take it.
    func screenshot() async -> String? {
        try? await driver.devTools("Page.captureScreenshot", .object([("format", .string("jpeg")), ("quality", .int(50))]))["data"]?.stringValue
    }

    /// Opens `url` as the relying party's own page would (a same-site GET) with `jar`'s cookies.
    func visit(_ url: URL, jar: inout BrowserCookieJar) async -> AuditBrowser.Navigation {
        let window: String
        let aged: Set<String>
        do {
            window = try await use(nil)
            aged = try await putCookies(jar)
        } catch {
            return .init(end: .failed("Chromium could not open \(url.absoluteString): \(error)"))
        }
        return await step(in: window, jar: &jar, aged: aged, timeout: .seconds(15)) {
            try await self.driver.command(.POST, "/url", .object([("url", .string(url.absoluteString))]))
            return []
        }
    }

    /// Makes `window` current when it is still open; else (or for nil) keeps the current window when it is open, or takes
    /// the newest one. Returns the window made current.
    func use(_ window: String?) async throws(ChromeDriver.CommandError) -> String {
        guard case let .array(values) = try await driver.command(.GET, "/window/handles") else {
            throw ChromeDriver.CommandError(code: "no such window", message: "Chromium has no window")
        }
        let handles = values.compactMap(\.stringValue)
        let current = (try? await driver.command(.GET, "/window"))?.stringValue
        guard let chosen = window.flatMap({ handles.contains($0) ? $0 : nil }) ?? current.flatMap({ handles.contains($0) ? $0 : nil }) ?? handles.last else {
            throw ChromeDriver.CommandError(code: "no such window", message: "Chromium has no window")
        }
        if chosen != current { try await driver.command(.POST, "/window", .object([("handle", .string(chosen))])) }
        return chosen
    }

    /// Puts `jar`'s cookies, and only those, in the browser; returns the names of those put in as `Lax` for their age.
    func putCookies(_ jar: BrowserCookieJar) async throws(ChromeDriver.CommandError) -> Set<String> {
        try await driver.devTools("Network.clearBrowserCookies")
        let (parameters, aged) = DevToolsCookies.setting(jar)
        try await driver.devTools("Network.setCookies", parameters)
        return aged
    }

    /// Gives the browser's cookies back to `jar`, with the cookies the browser `refused`; a cookie of `aged` that comes back
    /// `Lax` is the one put in as `Lax` for its age, which has no `SameSite` of its own.
    func readCookies(into jar: inout BrowserCookieJar, refused: [String], aged: Set<String> = []) async throws(ChromeDriver.CommandError) {
        guard case let .array(cookies) = try await driver.devTools("Network.getAllCookies")["cookies"] ?? .null else { return }
        jar.adopt(cookies.compactMap(DevToolsCookies.cookie).map { Self.unforced($0, aged: aged) }, refused: refused)
    }

    /// `cookie` as the relying party set it: one of `aged` that reads `Lax` was put in as `Lax` for its age, and has no
    /// `SameSite` of its own.
    private static func unforced(_ cookie: BrowserCookieJar.Cookie, aged: Set<String>) -> BrowserCookieJar.Cookie {
        guard aged.contains(cookie.name), cookie.sameSite == .lax else { return cookie }
        return BrowserCookieJar.Cookie(name: cookie.name, value: cookie.value, domain: cookie.domain, hostOnly: cookie.hostOnly, path: cookie.path,
                                       secure: cookie.secure, sameSite: .unspecified, expires: cookie.expires, created: cookie.created,
                                       httpOnly: cookie.httpOnly)
    }

    /// An address as a URL's host or a host rule takes it (an IPv6 address in brackets).
    static func bracketed(_ host: String) -> String { host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host }
}
