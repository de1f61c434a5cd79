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

    /// A second since 1970 (UTC), with the C locale's English day and month names.
    static func format(secondsSince1970: Int) -> String {
        var second = time_t(truncatingIfNeeded: secondsSince1970)
        var parts = tm()
        gmtime_r(&second, &parts)
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { buffer in
            let count = strftime(buffer.baseAddress!, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
    }
}
