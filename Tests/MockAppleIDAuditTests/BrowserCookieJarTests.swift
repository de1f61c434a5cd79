import Foundation
@testable import MockAppleIDAudit
import Testing

@Suite("The audit's browser cookie rules")
struct BrowserCookieJarTests {
    private let rp = URL(string: "http://127.0.0.1:8000/callback")!
    private let crossSitePost = BrowserCookieJar.Context.crossSite(method: "POST")

    private func jar(_ headers: String..., from url: URL? = nil) -> BrowserCookieJar {
        var jar = BrowserCookieJar()
        jar.store(setCookieHeaders: headers, from: url ?? rp)
        return jar
    }

    @Test("a cross-site POST carries SameSite=None cookies and withholds Lax and Strict ones")
    func crossSitePostRules() {
        let cookies = jar("none=1; SameSite=None; Secure", "lax=2; SameSite=Lax", "strict=3; SameSite=Strict")
        let selection = cookies.select(for: rp, context: crossSitePost)
        #expect(selection.sent.map(\.name) == ["none"])
        #expect(Set(selection.withheld.map(\.name)) == ["lax", "strict"])
        #expect(selection.header == "none=1")
    }

    @Test("a cookie with no SameSite rides a cross-site POST only within two minutes of being set")
    func laxAllowingUnsafe() {
        var cookies = jar("plain=1")
        cookies.pass(119)
        #expect(cookies.select(for: rp, context: crossSitePost).sent.map(\.name) == ["plain"])
        cookies.pass(2)
        #expect(cookies.select(for: rp, context: crossSitePost).withheld.map(\.name) == ["plain"])
        // A cross-site GET (the redirects after the form_post) still carries it, and a Lax one; never a Strict one.
        let get = BrowserCookieJar.Context.crossSite(method: "GET")
        cookies.store(setCookieHeaders: ["lax=2; SameSite=Lax", "strict=3; SameSite=Strict"], from: rp)
        #expect(Set(cookies.select(for: rp, context: get).sent.map(\.name)) == ["plain", "lax"])
        #expect(cookies.select(for: rp, context: .sameSite).sent.count == 3)
    }

    @Test("a cookie replaced with the same value keeps its creation time; with another value it starts afresh, as in Chromium")
    func replacementKeepsCreation() {
        var cookies = jar("plain=1")
        cookies.pass(100)
        cookies.store(setCookieHeaders: ["plain=1"], from: rp)
        cookies.pass(30)
        #expect(cookies.select(for: rp, context: crossSitePost).withheld.map(\.value) == ["1"])
        cookies.store(setCookieHeaders: ["plain=2"], from: rp)
        cookies.pass(30)
        #expect(cookies.select(for: rp, context: crossSitePost).sent.map(\.value) == ["2"])
    }

    @Test("Secure cookies are kept over http only for loopback hosts; SameSite=None needs Secure")
    func secureRules() {
        let remote = URL(string: "http://rp.example.com/")!
        let cookies = jar("secure=1; Secure", from: remote)
        #expect(cookies.cookies.isEmpty)
        #expect(cookies.refused.first?.hasPrefix("secure: Secure") == true)
        let unsecured = jar("none=1; SameSite=None")
        #expect(unsecured.cookies.isEmpty)
        #expect(unsecured.refused == ["none: SameSite=None without Secure"])
        let localhost = jar("secure=1; Secure; SameSite=None", from: URL(string: "http://localhost:3000/")!)
        #expect(localhost.select(for: URL(string: "http://localhost:4000/x")!, context: crossSitePost).sent.map(\.name) == ["secure"])
    }

    @Test("paths, hosts, Max-Age and Expires decide which cookies a request carries")
    func scoping() {
        var cookies = jar("root=1; Path=/", "deep=2; Path=/auth", "here=3", "gone=4; Max-Age=0", "old=5; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
                          "later=6; Max-Age=60")
        let callback = cookies.select(for: URL(string: "http://127.0.0.1:8000/auth/callback")!, context: .sameSite)
        #expect(callback.sent.map(\.name) == ["deep", "root", "here", "later"])
        #expect(cookies.select(for: URL(string: "http://127.0.0.1:8000/authx")!, context: .sameSite).sent.map(\.name) == ["root", "here", "later"])
        #expect(cookies.select(for: URL(string: "http://localhost:8000/")!, context: .sameSite).sent.isEmpty)
        cookies.pass(61)
        #expect(!cookies.select(for: rp, context: .sameSite).sent.map(\.name).contains("later"))
        cookies.store(setCookieHeaders: ["root=; Path=/; Max-Age=0"], from: rp)
        #expect(!cookies.cookies.map(\.name).contains("root"))
    }

    @Test("Set-Cookie lines are read as browsers read them, and bad ones are ignored")
    func setCookieParsing() throws {
        let now = Date()
        let line = try #require(SetCookieLine("sid = a=b ; path=/x; DOMAIN=.Example.COM; secure; samesite=none; max-age=10", now: now))
        #expect(line.name == "sid")
        #expect(line.value == "a=b")
        #expect(line.path == "/x")
        #expect(line.domain == "example.com")
        #expect(line.secure)
        #expect(line.sameSite == .none)
        #expect(line.expires == now.addingTimeInterval(10))
        #expect(SetCookieLine("novalue", now: now) == nil)
        #expect(SetCookieLine("=x", now: now) == nil)
        #expect(SetCookieLine("big=" + String(repeating: "x", count: 9000), now: now) == nil)
        #expect(SetCookieLine("big=" + String(repeating: "x", count: 4094), now: now) == nil)
        #expect(SetCookieLine("big=" + String(repeating: "x", count: 4093), now: now) != nil)
        #expect(!BrowserCookieJar.isSecureContext(URL(string: "http://127.example.com/")!))
        #expect(BrowserCookieJar.isSecureContext(URL(string: "http://127.0.0.2/")!))
        #expect(SetCookieLine("a=1; SameSite=bogus", now: now)?.sameSite == .unspecified)
        #expect(SetCookieLine("a=1; Path=relative", now: now)?.path == nil)
        let domain = jar("d=1; Domain=example.com", from: URL(string: "http://www.example.com/")!)
        #expect(domain.select(for: URL(string: "http://api.example.com/")!, context: .sameSite).sent.map(\.name) == ["d"])
        #expect(jar("d=1; Domain=other.com", from: URL(string: "http://www.example.com/")!).cookies.isEmpty)
    }
}
