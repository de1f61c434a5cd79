import Foundation

/// An app group moved from one developer team to another (Apple's app transfer). For
/// ``UserMigration/window`` after ``at`` both teams may call `/auth/usermigrationinfo` for its users,
/// and the identity tokens of the users it moved carry `transfer_sub`.
public struct AppTransfer: Sendable, Equatable, Codable {
    public let groupID: String
    public let fromTeam: String
    public let toTeam: String
    /// When it moved, on the mock clock.
    public let at: Date
    /// The personas who had consented to the group when it moved: the users it brought along.
    public let personas: [String]

    /// Whether the migration window is open at `now`.
    public func isOpen(at now: Date) -> Bool { at <= now && now < at.addingTimeInterval(UserMigration.window) }
}

/// Apple's user migration (`/auth/usermigrationinfo`): the constants and the access tokens teams
/// get for it with `grant_type=client_credentials&scope=user.migration`.
public enum UserMigration {
    /// How long after a transfer the migration endpoint serves both teams, and id_tokens carry `transfer_sub`: 60 days.
    public static let window: TimeInterval = 60 * 86_400
    /// The scope of a team access token.
    public static let scope = "user.migration"
    /// The most transfers kept.
    static let transferCapacity = 1000
    /// When this many team tokens are held, expired ones are dropped.
    static let tokenPurgeThreshold = 10_000
}

/// A team access token from `grant_type=client_credentials`.
struct TeamAccessToken: Sendable, Codable {
    let teamID: String
    let clientID: String
    let expiresAt: Date
}

/// Why a transfer was refused.
public struct TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
    enum Base: Sendable, Equatable {
        case unknownApp(String)
        case unknownTeam(String)
        case sameTeam(String)
        case tooMany
    }

    /// Which of them.
    let base: Base

    public static func unknownApp(_ id: String) -> Self { Self(base: .unknownApp(id)) }
    public static func unknownTeam(_ id: String) -> Self { Self(base: .unknownTeam(id)) }
    public static func sameTeam(_ id: String) -> Self { Self(base: .sameTeam(id)) }
    public static var tooMany: Self { Self(base: .tooMany) }

    public var description: String {
        switch base {
        case let .unknownApp(id): return "no app group or client has id \(id)"
        case let .unknownTeam(id): return "no team has Team ID \(id)"
        case let .sameTeam(id): return "the app group already belongs to team \(id)"
        case .tooMany: return "at most \(UserMigration.transferCapacity) transfers"
        }
    }
}
