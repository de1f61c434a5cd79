import Foundation
import MockAppleID
import NIOCore

/// How Apple's answer reaches the relying party in the real browser: from a page of Apple's own site (`form_post`,
/// `query`), or from Apple's popup to the page that opened it (`web_message`).
extension ChromiumBrowser {
    /// How long a page must make no request for its script to count as done with Apple's `web_message` answer.
    static let quietAfterMessage: Duration = .milliseconds(750)
    /// How long the page Apple's `form_post` or redirect led to must make no request for its own script (a page that
    /// posts or navigates on) to count as done.
    static let quietAfterLoad: Duration = .milliseconds(300)

    /// Delivers `fields` from a page of Apple's own site, as Apple's `form_post` page does (a form posting them to `target`,
    /// the return URL) or as Apple's redirect does (`byGET`: a GET of `target`, the return URL with them), with `jar`'s
    /// cookies, in `window` (the sign-in's, when still open). A cookie with no `SameSite` older than two minutes by the
    /// jar's clock goes in as `Lax` (``DevToolsCookies/setting(_:)``).
    func deliver(_ fields: FormParameters, to target: URL, byGET: Bool, in window: String?, jar: inout BrowserCookieJar,
                 timeout: TimeAmount) async -> AuditBrowser.Navigation {
        // Any page of the server under Apple's name will do: Sign in with Apple JS, which the server serves at its root
        // and journals nowhere (a keys fetch would count as the relying party's).
        var components = URLComponents(url: appleSite, resolvingAgainstBaseURL: false)
        components?.path = "/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js"
        guard let applePage = components?.url else { return .init(end: .failed("Apple's page has no URL")) }
        let current: String
        let aged: Set<String>
        do {
            current = try await use(window)
            aged = try await putCookies(jar)
            try await driver.command(.POST, "/timeouts", .object([("pageLoad", .int(15000))]))
            try await driver.command(.POST, "/url", .object([("url", .string(applePage.absoluteString))]))
        } catch {
            return .init(end: .failed("Chromium could not open Apple's page: \(error)"))
        }
        let script = byGET
            ? "location.assign(arguments[0]);"
            : """
              var form = document.createElement("form"); form.method = "post"; form.action = arguments[0];
              arguments[1].forEach(function (pair) { var input = document.createElement("input"); input.type = "hidden";
                input.name = pair[0]; input.value = pair[1]; form.appendChild(input); });
              document.body.appendChild(form); form.submit();
              """
        let pairs = JSONValue.array(fields.pairs.map { .array([.string($0.name), .string($0.value)]) })
        let deadline = ContinuousClock.now + .nanoseconds(timeout.nanoseconds)
        return await step(in: current, jar: &jar, aged: aged, timeout: timeout) {
            try await self.driver.execute(script, [.string(target.absoluteString), pairs])
            return try await self.answered(in: current, before: deadline)
        }
    }

    /// The network events of `window` until the navigation a script started has an answer (a document's response, or its
    /// failure), then until that page has loaded; a `timeout` error at `deadline`.
    private func answered(in window: String, before deadline: ContinuousClock.Instant) async throws(ChromeDriver.CommandError) -> [JSONValue] {
        var events: [JSONValue] = []
        while ContinuousClock.now < deadline {
            events += try await driver.performanceLog(of: window)
            let done = events.contains { event in
                let method = event["method"]?.stringValue
                return (method == "Network.responseReceived" || method == "Network.loadingFailed") && event["params"]?["type"]?.stringValue == "Document"
            }
            if done {
                // The driver answers once the page has loaded; then its own script may go on.
                try await driver.command(.GET, "/url")
                return events + (try await settle(window: window, quiet: Self.quietAfterLoad, before: deadline))
            }
            do { try await Task.sleep(for: .milliseconds(50)) } catch { break }
        }
        throw ChromeDriver.CommandError(code: "timeout", message: "the return URL did not answer in time")
    }

    /// Delivers Apple's `web_message` answer as Apple's popup does: from the window at Apple's authorize endpoint, it posts
    /// `message` to the page that opened it (handed over only if that page's origin is `origin`) and closes; the step lasts
    /// until the page's JavaScript is done with the answer (no request of the page's in flight for ``quietAfterMessage``).
    func deliverMessage(_ message: String, origin: String, windows: Windows, jar: inout BrowserCookieJar, timeout: TimeAmount) async -> AuditBrowser.Navigation {
        guard windows.page != windows.authorize else {
            return .init(end: .failed("the relying party asked for response_mode=web_message without opening Apple's page in a popup: nothing listens for the message"))
        }
        let aged: Set<String>
        do {
            _ = try await use(windows.authorize)
            aged = try await putCookies(jar)
        } catch {
            return .init(end: .failed("Chromium could not reach Apple's popup: \(error)"))
        }
        let deadline = ContinuousClock.now + .nanoseconds(timeout.nanoseconds)
        return await step(in: windows.page, jar: &jar, aged: aged, timeout: timeout, kinds: NetworkLog.documentsAndFetches, stayed: windows.pageStatus) {
            try await self.driver.execute("window.opener.postMessage(JSON.parse(arguments[0]), arguments[1]); window.close();",
                                          [.string(message), .string(origin)])
            try await self.driver.command(.POST, "/window", .object([("handle", .string(windows.page))]))
            return try await self.settle(window: windows.page, quiet: Self.quietAfterMessage, before: deadline)
        }
    }

    /// The network events of `window` until none of its requests is in flight and none has started for `quiet`; a
    /// `timeout` error at `deadline`.
    private func settle(window: String, quiet: Duration, before deadline: ContinuousClock.Instant) async throws(ChromeDriver.CommandError) -> [JSONValue] {
        var events: [JSONValue] = []
        var inFlight = Set<String>()
        var lastActivity = ContinuousClock.now
        while ContinuousClock.now < deadline {
            let read = try await driver.performanceLog(of: window)
            for event in read {
                guard let request = event["params"]?["requestId"]?.stringValue else { continue }
                switch event["method"]?.stringValue {
                case "Network.requestWillBeSent": inFlight.insert(request)
                // A response counts as the end of its request: a page that navigates away never reads the rest of a fetch's.
                case "Network.responseReceived", "Network.loadingFinished", "Network.loadingFailed": inFlight.remove(request)
                default: break
                }
            }
            if !read.isEmpty { lastActivity = ContinuousClock.now }
            events += read
            if inFlight.isEmpty, ContinuousClock.now - lastActivity >= quiet { return events }
            do { try await Task.sleep(for: .milliseconds(100)) } catch { break }
        }
        throw ChromeDriver.CommandError(code: "timeout", message: "the page was still busy with Apple's answer")
    }
}
