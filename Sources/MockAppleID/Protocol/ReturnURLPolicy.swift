import Foundation

/// Apple's rule for registered return URLs (and notification URLs): absolute https on a domain name,
/// with no IP address, no `localhost` and no fragment. The `allowLoopback` knob also admits
/// `http(s)://localhost` and loopback IPs for local development.
public struct ReturnURLPolicy: Sendable {
    public let allowLoopback: Bool
    /// The scenario setting that admits loopback URLs, named when one is refused.
    let setting: String

    public init(allowLoopback: Bool, setting: String = "allowLoopbackReturnURLs") {
        self.allowLoopback = allowLoopback
        self.setting = setting
    }

    /// Why `url` cannot be registered as one of `kind`, or nil if it can.
    public func problem(with url: String, kind: String = "return URLs") -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.wireHost?.lowercased(), !host.isEmpty
        else { return "\"\(url)\" is not an absolute URL with a scheme and host" }
        guard components.fragment == nil else { return "\"\(url)\" has a fragment (#); \(kind) may not" }
        let loopback = Self.isLoopback(host)
        if loopback {
            guard allowLoopback else {
                return "\"\(url)\" points at localhost/loopback, which Apple refuses; set settings.\(setting): true for local development"
            }
            guard scheme == "http" || scheme == "https" else { return "\"\(url)\" must use http or https" }
            return nil
        }
        guard scheme == "https" else { return "\"\(url)\" must use https (Apple refuses \(scheme) \(kind))" }
        guard !Self.isIPAddress(host) else { return "\"\(url)\" uses an IP address; Apple requires a domain name" }
        guard host.contains("." as Character) else { return "\"\(url)\" needs a fully qualified domain name" }
        return nil
    }

    /// Whether `host` (a name or an IP address, IPv6 with or without brackets) is this machine's loopback.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasSuffix(".localhost") || host == "[::1]" || host == "::1"
            || (isIPAddress(host) && host.hasPrefix("127."))
    }

    static func isIPAddress(_ host: String) -> Bool {
        if host.hasPrefix("[") || host.contains(":" as Character) { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }
}
