import Foundation

/// How the private email relay accepts mail. The defaults follow Apple's documentation: 100 messages
/// per relay address per day, and a `550 5.1.1` rejection for mail it will not relay.
public struct RelayOptions: Sendable, Equatable {
    /// The text after `550 5.1.1 <address>:` when the sender is not registered for the team.
    public enum SenderRejection: String, Sendable, CaseIterable {
        /// `unauthorized sender`, as relaying servers have answered.
        case unauthorizedSender = "unauthorized sender"
        /// `user not found`, as others have seen it.
        case userNotFound = "user not found"
        /// `bad mailbox name`.
        case badMailboxName = "bad mailbox name"
    }

    /// The domain relay addresses are given out at. Apple documents both (and `icloud.com`); reports from
    /// mid-2026, none from Apple, say new addresses are on `private.icloud.com`. The relay takes mail for
    /// an address at either.
    public enum AddressDomain: String, Sendable, CaseIterable, Codable {
        case privateRelay = "privaterelay.appleid.com"
        case privateICloud = "private.icloud.com"
    }

    /// Messages one relay address accepts in 24 hours of clock time; 0 for no limit.
    public var dailyLimit = 100
    public var addressDomain = AddressDomain.privateRelay
    public var senderRejection = SenderRejection.unauthorizedSender
    /// The largest message accepted over SMTP (advertised with `SIZE`), in bytes.
    public var maxMessageSize = 10 * 1024 * 1024
    /// Messages kept across all inboxes; the oldest go first.
    public var inboxCapacity = 1000

    /// Bounds of the knobs.
    public static let largestMessageSize = 50 * 1024 * 1024
    public static let largestInboxCapacity = 100_000

    public init() {}
}
