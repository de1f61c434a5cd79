import Foundation

/// One `Set-Cookie` header taken apart (RFC 6265 §5.2): the name and value, and the attributes a
/// browser's rules use. Attributes it does not know are ignored, as a browser ignores them.
struct SetCookieLine: Sendable, Equatable {
    /// The longest header read, and the longest name and value together (Chromium ignores a cookie over 4 KB).
    static let maxLength = 8 * 1024
    static let maxNameAndValue = 4096

    let name: String
    let value: String
    let domain: String?
    let path: String?
    let secure: Bool
    let sameSite: BrowserCookieJar.SameSite
    /// From `Max-Age` (which wins) or `Expires`; nil for a session cookie.
    let expires: Date?

    init?(_ header: String, now: Date) {
        guard header.utf8.count <= Self.maxLength else { return nil }
        var parts = header.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let pair = parts.next(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        self.name = name
        value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard name.utf8.count + value.utf8.count <= Self.maxNameAndValue else { return nil }
        var domain: String?, path: String?, secure = false, sameSite = BrowserCookieJar.SameSite.unspecified
        var maxAge: Date?, expires: Date?
        while let part = parts.next() {
            let attribute = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = attribute[0].trimmingCharacters(in: .whitespaces).lowercased()
            let argument = attribute.count > 1 ? attribute[1].trimmingCharacters(in: .whitespaces) : ""
            switch key {
            case "domain":
                var bare = argument.lowercased()
                if bare.hasPrefix(".") { bare.removeFirst() }
                domain = bare
            case "path": path = argument.hasPrefix("/") ? argument : nil
            case "secure": secure = true
            case "samesite":
                switch argument.lowercased() {
                case "none": sameSite = .none
                case "lax": sameSite = .lax
                case "strict": sameSite = .strict
                default: sameSite = .unspecified
                }
            case "max-age":
                if let seconds = Int(argument) { maxAge = seconds <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(seconds)) }
            case "expires": expires = Self.httpDate(argument)
            default: break
            }
        }
        self.domain = domain
        self.path = path
        self.secure = secure
        self.sameSite = sameSite
        self.expires = maxAge ?? expires
    }

    private static let dateFormats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEE, dd-MMM-yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz",
                                      "EEE MMM d HH:mm:ss yyyy"]

    private static func httpDate(_ text: String) -> Date? {
        for format in dateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
