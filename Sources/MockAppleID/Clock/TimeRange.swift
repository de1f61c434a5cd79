import Foundation

/// The instants and durations the mock clock accepts, and checked conversions of seconds to integers.
///
/// Every emitted time (`iat`, `exp`, `auth_time`, `event_time`) is built from a clock reading inside
/// this range plus a bounded duration, so none of them can overflow an `Int64`.
public enum TimeRange {
    /// 1970-01-01T00:00:00Z.
    public static let earliest = Date(timeIntervalSince1970: 0)
    /// 9999-12-31T23:59:59Z.
    public static let latest = Date(timeIntervalSince1970: 253_402_300_799)
    /// The longest duration a scenario or an admin call may name: about 100 years.
    public static let longestDuration: TimeInterval = 3_153_600_000

    /// Why an instant or a duration was refused.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
        enum Base: Sendable, Equatable {
            case notFinite(String)
            case outOfRange(String)
        }

        /// Which of them.
        let base: Base

        public static func notFinite(_ what: String) -> Self { Self(base: .notFinite(what)) }
        public static func outOfRange(_ what: String) -> Self { Self(base: .outOfRange(what)) }

        public var description: String {
            switch base {
            case let .notFinite(what): return "\(what) must be a finite number"
            case let .outOfRange(what): return what
            }
        }
    }

    /// `date` if it lies between ``earliest`` and ``latest``.
    public static func check(_ date: Date, _ what: String = "the time") throws(Failure) -> Date {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { throw .notFinite(what) }
        guard date >= earliest, date <= latest else {
            throw .outOfRange("\(what) must lie between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z (epoch seconds 0 to 253402300799)")
        }
        return date
    }

    /// `seconds` if it is finite and at most ``longestDuration`` either way.
    public static func checkDuration(_ seconds: TimeInterval, _ what: String = "the duration") throws(Failure) -> TimeInterval {
        guard seconds.isFinite else { throw .notFinite(what) }
        guard abs(seconds) <= longestDuration else {
            throw .outOfRange("\(what) must be at most \(Int64(longestDuration)) seconds (about 100 years) either way")
        }
        return seconds
    }

    /// Whole seconds of `value`, rounded down; saturates instead of trapping (NaN reads as 0).
    public static func wholeSeconds(_ value: Double) -> Int64 {
        guard value.isFinite else { return value.isNaN ? 0 : (value > 0 ? .max : .min) }
        return Int64(exactly: value.rounded(.down)) ?? (value > 0 ? .max : .min)
    }

    /// ``wholeSeconds(_:)`` as an `Int`.
    public static func wholeSecondsInt(_ value: Double) -> Int { Int(truncatingIfNeeded: wholeSeconds(value)) }
}
