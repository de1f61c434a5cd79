import Foundation
import MockAppleID
@testable import MockAppleIDAudit
import Testing

@Suite("The real browser's network log and cookies")
struct ChromiumPiecesTests {
    /// One DevTools event as chromedriver's performance log gives it.
    private func event(_ method: String, _ parameters: [(String, JSONValue)]) -> JSONValue {
        .object([("method", .string(method)), ("params", .object(parameters))])
    }

    private func document(_ request: String, _ method: String, _ url: String, frame: String = "top", type: String = "Document",
                          redirectedWith status: Int64? = nil) -> JSONValue {
        var parameters: [(String, JSONValue)] = [("requestId", .string(request)), ("type", .string(type)), ("frameId", .string(frame)),
                                                 ("request", .object([("url", .string(url)), ("method", .string(method))]))]
        if let status { parameters.append(("redirectResponse", .object([("status", .int(status))]))) }
        return event("Network.requestWillBeSent", parameters)
    }

    private func cookie(_ name: String, sameSite: String? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name)), ("value", .string("v")), ("domain", .string("127.0.0.1")),
                                              ("path", .string("/")), ("secure", .bool(false)), ("session", .bool(true))]
        if let sameSite { members.append(("sameSite", .string(sameSite))) }
        return .object(members)
    }

    private func sent(_ request: String, _ cookies: [(JSONValue, [String])]) -> JSONValue {
        event("Network.requestWillBeSentExtraInfo", [("requestId", .string(request)), ("associatedCookies", .array(cookies.map { cookie, reasons in
            .object([("blockedReasons", .array(reasons.map(JSONValue.string))), ("cookie", cookie)])
        }))])
    }

    @Test("a form_post and its redirect become two hops with their statuses; the cookies a SameSite rule kept from each are named")
    func hopsAndWithheldCookies() {
        let log = NetworkLog([
            document("1", "POST", "http://127.0.0.1:8000/callback"),
            sent("1", [(cookie("state", sameSite: "Lax"), ["SchemefulSameSiteLax"]), (cookie("other"), [])]),
            document("1", "GET", "http://127.0.0.1:8000/me", redirectedWith: 303),
            sent("1", [(cookie("state", sameSite: "Lax"), []), (cookie("other"), [])]),
            // A frame inside the page is not a hop of the navigation.
            document("2", "GET", "http://127.0.0.1:8000/frame", frame: "inner"),
            event("Network.responseReceived", [("requestId", .string("1")), ("response", .object([("status", .int(200))]))]),
            event("Network.responseReceivedExtraInfo", [("requestId", .string("1")), ("blockedCookies", .array([
                .object([("blockedReasons", .array([.string("SameSiteNoneInsecure")])), ("cookieLine", .string("sid=1; SameSite=None"))]),
            ]))]),
        ], cookie: DevToolsCookies.cookie)
        #expect(log.hops.map { "\($0.method) \($0.url.path) \($0.status)" } == ["POST /callback 303", "GET /me 200"])
        #expect(log.hops.map { $0.withheld.map(\.name) } == [["state"], []])
        #expect(log.hops[0].withheld.first?.sameSite == .lax)
        #expect(log.refused == ["sid: SameSiteNoneInsecure"])
        #expect(log.failed == nil)
    }

    @Test("a document request that got no answer is the log's failure, not a hop")
    func failedRequest() {
        let log = NetworkLog([
            document("1", "GET", "http://elsewhere.example/"),
            event("Network.loadingFailed", [("requestId", .string("1")), ("errorText", .string("net::ERR_NAME_NOT_RESOLVED"))]),
        ], cookie: DevToolsCookies.cookie)
        #expect(log.hops.isEmpty)
        #expect(log.failed?.url.host == "elsewhere.example")
        #expect(log.failed?.error == "net::ERR_NAME_NOT_RESOLVED")
    }

    @Test("a navigation the page superseded is no failure; a fetch's status is not the page's")
    func supersededAndFetched() {
        let log = NetworkLog([
            document("1", "GET", "http://127.0.0.1:8000/a"),
            event("Network.loadingFailed", [("requestId", .string("1")), ("errorText", .string("net::ERR_ABORTED"))]),
            document("2", "GET", "http://127.0.0.1:8000/b"),
            event("Network.responseReceived", [("requestId", .string("2")), ("response", .object([("status", .int(200))]))]),
            document("3", "POST", "http://127.0.0.1:8000/auth/apple", type: "Fetch"),
            event("Network.responseReceived", [("requestId", .string("3")), ("response", .object([("status", .int(400))]))]),
        ], kinds: NetworkLog.documentsAndFetches, cookie: DevToolsCookies.cookie)
        #expect(log.failed == nil)
        #expect(log.hops.map { "\($0.method) \($0.url.path) \($0.status)" } == ["GET /b 200", "POST /auth/apple 400"])
        #expect(log.documentStatus == 200)
    }

    @Test("a domain cookie and an expiry read from the browser")
    func domainCookieAndExpiry() throws {
        let read = try #require(DevToolsCookies.cookie(.object([
            ("name", .string("sid")), ("value", .string("1")), ("domain", .string(".Example.test")), ("path", .string("/")),
            ("secure", .bool(true)), ("session", .bool(false)), ("expires", .double(2_000_000_000.5)), ("sameSite", .string("None")),
        ])))
        #expect(read.domain == "example.test" && !read.hostOnly && read.secure && read.sameSite == BrowserCookieJar.SameSite.none)
        #expect(read.expires == Date(timeIntervalSince1970: 2_000_000_000.5))
    }

    @Test("the browser's cookies come back to the jar keeping the creation time of those that did not change")
    func cookiesComeBack() throws {
        var jar = BrowserCookieJar()
        jar.store(setCookieHeaders: ["kept=v", "changed=old"], from: URL(string: "http://127.0.0.1:8000/")!)
        let created = try #require(jar.cookies.first { $0.name == "kept" }?.created)
        jar.pass(60)
        let fromBrowser = [cookie("kept"), cookie("changed"), cookie("new", sameSite: "Strict")].compactMap(DevToolsCookies.cookie)
        jar.adopt(fromBrowser, refused: ["bad: SameSiteNoneInsecure"])
        #expect(jar.cookies.map(\.name) == ["kept", "changed", "new"])
        #expect(jar.cookies[0].created == created)
        #expect(jar.cookies[1].created > created)
        #expect(jar.cookies[2].sameSite == .strict)
        #expect(jar.refused == ["bad: SameSiteNoneInsecure"])
    }

    @Test("a cookie with no SameSite goes into the browser as Lax once the jar's clock is two minutes past its setting")
    func agedCookiesGoInAsLax() {
        var jar = BrowserCookieJar()
        jar.store(setCookieHeaders: ["plain=1", "domain=2; Domain=example.test; SameSite=None; Secure"], from: URL(string: "https://rp.example.test/")!)
        func sameSite(of name: String) -> String? {
            guard case let .array(cookies) = DevToolsCookies.setting(jar).parameters["cookies"] ?? .null else { return "none set" }
            return cookies.first { $0["name"]?.stringValue == name }?["sameSite"]?.stringValue
        }
        #expect(sameSite(of: "plain") == nil)
        jar.pass(121)
        #expect(sameSite(of: "plain") == "Lax")
        #expect(sameSite(of: "domain") == "None")
        #expect(DevToolsCookies.setting(jar).aged == ["plain"])
        guard case let .array(cookies) = DevToolsCookies.setting(jar).parameters["cookies"] ?? .null else { Issue.record("no cookies"); return }
        // A host-only cookie is set by its URL, a domain cookie by its domain.
        #expect(cookies.first { $0["name"]?.stringValue == "plain" }?["url"]?.stringValue == "http://rp.example.test/")
        #expect(cookies.first { $0["name"]?.stringValue == "domain" }?["domain"]?.stringValue == ".example.test")
    }
}
