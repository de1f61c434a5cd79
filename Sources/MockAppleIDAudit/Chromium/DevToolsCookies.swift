import Foundation
import MockAppleID

/// The jar's cookies as the DevTools protocol's `Network` domain reads and writes them, so that each step of the real
/// browser starts from the attempt's cookies and ends by giving them back.
enum DevToolsCookies {
    /// A cookie of `Network.getAllCookies` as the jar's (created now; ``BrowserCookieJar/adopt(_:refused:)`` keeps an
    /// older creation time).
    static func cookie(_ value: JSONValue) -> BrowserCookieJar.Cookie? {
        guard let name = value["name"]?.stringValue, let domain = value["domain"]?.stringValue else { return nil }
        let sameSite = value["sameSite"]?.stringValue.flatMap(BrowserCookieJar.SameSite.init(rawValue:)) ?? .unspecified
        let expiry = value["expires"].flatMap { json -> Double? in
            if case let .double(seconds) = json { return seconds }
            return json.int64Value.map(Double.init)
        }
        let session = value["session"]?.boolValue ?? true
        return BrowserCookieJar.Cookie(
            name: name, value: value["value"]?.stringValue ?? "", domain: domain.hasPrefix(".") ? String(domain.dropFirst()).lowercased() : domain.lowercased(),
            hostOnly: !domain.hasPrefix("."), path: value["path"]?.stringValue ?? "/", secure: value["secure"]?.boolValue ?? false,
            sameSite: sameSite, expires: session ? nil : expiry.map(Date.init(timeIntervalSince1970:)), created: Date(),
            httpOnly: value["httpOnly"]?.boolValue ?? false)
    }

    /// The parameters of `Network.setCookies` that put `jar`'s cookies in the browser. A cookie with no `SameSite` set
    /// longer ago by the jar's clock than Chromium's two-minute window goes in as `Lax`, which is how Chromium treats it
    /// then (its clock cannot be moved); the names of those come back too.
    static func setting(_ jar: BrowserCookieJar) -> (parameters: JSONValue, aged: Set<String>) {
        let moment = jar.now
        var aged: Set<String> = []
        let cookies = jar.cookies.filter { $0.expires.map { $0 > moment } ?? true }.map { cookie -> JSONValue in
            var members: [(String, JSONValue)] = [("name", .string(cookie.name)), ("value", .string(cookie.value)), ("path", .string(cookie.path)),
                                                  ("secure", .bool(cookie.secure)), ("httpOnly", .bool(cookie.httpOnly))]
            if cookie.hostOnly {
                members.append(("url", .string("\(cookie.secure ? "https" : "http")://\(ChromiumBrowser.bracketed(cookie.domain))\(cookie.path)")))
            } else {
                members.append(("domain", .string("." + cookie.domain)))
            }
            if cookie.sameSite != .unspecified {
                members.append(("sameSite", .string(cookie.sameSite.rawValue)))
            } else if moment.timeIntervalSince(cookie.created) > BrowserCookieJar.laxAllowingUnsafeWindow {
                members.append(("sameSite", .string(BrowserCookieJar.SameSite.lax.rawValue)))
                aged.insert(cookie.name)
            }
            if let expires = cookie.expires { members.append(("expires", .double(expires.timeIntervalSince1970))) }
            return .object(members)
        }
        return (.object([("cookies", .array(cookies))]), aged)
    }
}
