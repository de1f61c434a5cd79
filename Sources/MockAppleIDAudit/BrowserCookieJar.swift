import Foundation

/// A browser's cookie store with the rules that decide what reaches a relying party after Apple's
/// form_post, as Chromium applies them (checked against Chromium in the tests):
///
/// - A form_post from Apple is a cross-site POST, whatever host and port the local server has. It
///   carries cookies marked `SameSite=None` (which must be `Secure`), and cookies with no `SameSite`
///   only within two minutes of their being set; `Lax` and `Strict` cookies are withheld.
/// - The redirects that follow it are cross-site top-level GETs: they carry `None`, `Lax` and unmarked
///   cookies, not `Strict` ones.
/// - A request the relying party's own pages start is same-site and carries every cookie.
/// - `Secure` cookies are kept and sent over https, and over plain http to a loopback host (a browser
///   treats those as secure contexts).
///
/// The jar keeps its own clock, so the time a person spends on Apple's page is simulated, never waited for.
struct BrowserCookieJar: Sendable {
    /// A cookie's `SameSite` attribute.
    enum SameSite: String, Sendable {
        case none = "None", lax = "Lax", strict = "Strict", unspecified = "unspecified"
    }

    /// A cookie as the jar keeps it.
    struct Cookie: Sendable, Equatable {
        let name: String
        let value: String
        /// The host (host-only) or the domain it was set for, lower-cased, without a leading dot.
        let domain: String
        let hostOnly: Bool
        let path: String
        let secure: Bool
        let sameSite: SameSite
        let expires: Date?
        let created: Date
        /// Hidden from the page's scripts (kept only so that a real browser gets the cookie back as it set it).
        var httpOnly = false

        /// `name (SameSite=Lax)`, for explanations.
        var label: String {
            sameSite == .unspecified ? "\(name) (no SameSite)" : "\(name) (SameSite=\(sameSite.rawValue)\(secure ? "; Secure" : ""))"
        }
    }

    /// Where a request comes from, as the browser's SameSite rules see it.
    enum Context: Sendable, Equatable {
        /// Started by the relying party's own page.
        case sameSite
        /// A top-level navigation started by another site (Apple's form_post, and the redirects after it).
        case crossSite(method: String)
    }

    /// The cookies a request carries, and those a SameSite rule withheld from it.
    struct Selection: Sendable {
        var sent: [Cookie] = []
        var withheld: [Cookie] = []

        /// The `Cookie` header's value, nil when there is none to send.
        var header: String? { sent.isEmpty ? nil : sent.map { "\($0.name)=\($0.value)" }.joined(separator: "; ") }
    }

    /// How long after being set a cookie with no `SameSite` still rides a cross-site POST.
    static let laxAllowingUnsafeWindow: TimeInterval = 120

    private(set) var cookies: [Cookie] = []
    /// Cookies refused when set, with why (a `SameSite=None` cookie that is not `Secure`, a `Secure` one over http).
    private(set) var refused: [String] = []
    /// How far the jar's clock is ahead of the real one.
    private var offset: TimeInterval = 0

    /// The jar's time now.
    var now: Date { Date().addingTimeInterval(offset) }

    /// Moves the jar's clock on: the person spends `seconds` elsewhere.
    mutating func pass(_ seconds: TimeInterval) { offset += seconds }

    /// Takes `cookies` as the jar's whole content (what a real browser holds after a step), each keeping the creation time
    /// of the same cookie with the same value here, and notes the cookies the browser `refused`.
    mutating func adopt(_ cookies: [Cookie], refused: [String]) {
        let moment = now
        self.cookies = cookies.map { cookie in
            let same = self.cookies.first { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path && $0.value == cookie.value }
            return Cookie(name: cookie.name, value: cookie.value, domain: cookie.domain, hostOnly: cookie.hostOnly, path: cookie.path,
                          secure: cookie.secure, sameSite: cookie.sameSite, expires: cookie.expires, created: same?.created ?? moment,
                          httpOnly: cookie.httpOnly)
        }
        self.refused += refused
    }

    /// Stores the cookies of a response to `url`.
    mutating func store(setCookieHeaders headers: [String], from url: URL) {
        for header in headers { store(header, from: url) }
    }

    private mutating func store(_ header: String, from url: URL) {
        guard let host = url.host?.lowercased(), let parsed = SetCookieLine(header, now: now) else { return }
        let secureContext = Self.isSecureContext(url)
        if parsed.secure, !secureContext { refused.append("\(parsed.name): Secure, set over plain http to a host that is not loopback"); return }
        if parsed.sameSite == .none, !parsed.secure { refused.append("\(parsed.name): SameSite=None without Secure"); return }
        var domain = host
        var hostOnly = true
        if let attribute = parsed.domain, !attribute.isEmpty {
            guard Self.domainMatches(host: host, domain: attribute) else { refused.append("\(parsed.name): Domain=\(attribute) does not match \(host)"); return }
            domain = attribute
            hostOnly = false
        }
        let path = parsed.path ?? Self.defaultPath(url.path)
        // A cookie that replaces another with the same value keeps the other's creation time, as Chromium does.
        let replaced = cookies.first { $0.name == parsed.name && $0.domain == domain && $0.path == path }
        let created = replaced.flatMap { $0.value == parsed.value ? $0.created : nil } ?? now
        cookies.removeAll { $0.name == parsed.name && $0.domain == domain && $0.path == path }
        if let expires = parsed.expires, expires <= now { return }
        cookies.append(Cookie(name: parsed.name, value: parsed.value, domain: domain, hostOnly: hostOnly, path: path,
                              secure: parsed.secure, sameSite: parsed.sameSite, expires: parsed.expires, created: created))
    }

    /// The cookies a request to `url` carries in `context`, longest path first.
    func select(for url: URL, context: Context) -> Selection {
        var selection = Selection()
        guard let host = url.host?.lowercased() else { return selection }
        let path = url.path.isEmpty ? "/" : url.path
        let secureContext = Self.isSecureContext(url)
        let moment = now
        let candidates = cookies.filter { cookie in
            (cookie.hostOnly ? cookie.domain == host : Self.domainMatches(host: host, domain: cookie.domain))
                && Self.pathMatches(path, cookie.path) && (!cookie.secure || secureContext)
                && (cookie.expires.map { $0 > moment } ?? true)
        }.sorted { $0.path.count != $1.path.count ? $0.path.count > $1.path.count : $0.created < $1.created }
        for cookie in candidates {
            if Self.allows(cookie, in: context, at: moment) { selection.sent.append(cookie) } else { selection.withheld.append(cookie) }
        }
        return selection
    }

    private static func allows(_ cookie: Cookie, in context: Context, at moment: Date) -> Bool {
        guard case let .crossSite(method) = context else { return true }
        let safe = method == "GET" || method == "HEAD"
        switch cookie.sameSite {
        case .none: return true
        case .strict: return false
        case .lax: return safe
        case .unspecified: return safe || moment.timeIntervalSince(cookie.created) <= laxAllowingUnsafeWindow
        }
    }

    /// https, or plain http to this machine's loopback.
    static func isSecureContext(_ url: URL) -> Bool {
        if url.scheme?.lowercased() == "https" { return true }
        guard let host = url.host?.lowercased() else { return false }
        let loopbackIPv4 = host.hasPrefix("127.") && host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." }
        return host == "localhost" || host.hasSuffix(".localhost") || loopbackIPv4 || host == "::1" || host == "[::1]"
    }

    private static func domainMatches(host: String, domain: String) -> Bool {
        host == domain || (host.hasSuffix("." + domain) && !host.allSatisfy { $0.isNumber || $0 == "." })
    }

    private static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    private static func defaultPath(_ requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let slash = requestPath.lastIndex(of: "/"), slash != requestPath.startIndex else { return "/" }
        return String(requestPath[..<slash])
    }
}
