import Foundation
import Synchronization

/// The one clock behind every expiry, issue time and transfer window of a provider.
///
/// It runs with the wall clock (plus an offset) or stands still; tests and the admin API set
/// and advance it. Instances are independent, so two servers in one process never interfere.
public final class MockClock: Sendable {
    /// How the clock moves.
    public enum Mode: Sendable, Equatable {
        /// Wall-clock time shifted by `offset` seconds.
        case running(offset: TimeInterval)
        /// Stands still at the given instant until set or advanced.
        case frozen(at: Date)
    }

    private let mode: Mutex<Mode>

    /// A clock that follows the wall clock.
    public init() { mode = Mutex(.running(offset: 0)) }

    /// A clock in the given mode.
    public init(_ mode: Mode) { self.mode = Mutex(mode) }

    /// A clock frozen at `date`: it moves only when set or advanced.
    public static func manual(at date: Date) -> MockClock { MockClock(.frozen(at: date)) }

    /// The current instant.
    public var now: Date {
        switch mode.withLock({ $0 }) {
        case let .running(offset): return Date().addingTimeInterval(offset)
        case let .frozen(date): return date
        }
    }

    /// The current mode.
    public var currentMode: Mode { mode.withLock { $0 } }

    /// Whether the clock stands still.
    public var isFrozen: Bool {
        if case .frozen = currentMode { return true }
        return false
    }

    /// Moves the clock by `seconds` (negative moves it back), keeping its mode.
    public func advance(by seconds: TimeInterval) {
        mode.withLock { mode in
            switch mode {
            case let .running(offset): mode = .running(offset: offset + seconds)
            case let .frozen(date): mode = .frozen(at: date.addingTimeInterval(seconds))
            }
        }
    }

    /// Sets the current instant; `frozen` chooses whether it then stands still or runs on from there.
    public func set(to date: Date, frozen: Bool) {
        mode.withLock { mode in
            mode = frozen ? .frozen(at: date) : .running(offset: date.timeIntervalSinceNow)
        }
    }

    /// Replaces the mode outright (used by reset).
    public func setMode(_ newMode: Mode) {
        mode.withLock { $0 = newMode }
    }
}
