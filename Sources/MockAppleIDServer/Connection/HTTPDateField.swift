#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The `Date` field's value for answers written without the router (which adds its own): RFC 9110's
/// IMF-fixdate for the current second, formatted at most once a second and shared by every connection.
final class HTTPDateField: Sendable {
    private struct Formatted {
        var second: time_t
        var text: String
    }

    private let formatted = Mutex(Formatted(second: -1, text: ""))

    /// Now, as `Sun, 06 Nov 1994 08:49:37 GMT`.
    var now: String {
        let second = time(nil)
        return formatted.withLock { formatted in
            if formatted.second != second {
                formatted = Formatted(second: second, text: Self.format(secondsSince1970: Int(truncatingIfNeeded: second)))
            }
            return formatted.text
        }
    }

    /// A second since 1970 (UTC), with English day and month names whatever the process's locale.
    static func format(secondsSince1970: Int) -> String {
        var second = time_t(truncatingIfNeeded: secondsSince1970)
        var parts = tm()
        gmtime_r(&second, &parts)
        let day = days[Int(parts.tm_wday) % days.count]
        let month = months[Int(parts.tm_mon) % months.count]
        return "\(day), \(twoDigits(parts.tm_mday)) \(month) \(1900 + Int(parts.tm_year)) "
            + "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec)) GMT"
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
