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

    /// The domains relay addresses are given out at. Apple gave them out at `privaterelay.appleid.com` and,
    /// since its developer news of 15 June 2026 (corrected on 24 August 2026), gives new ones out at
    /// `private.icloud.com`; an address keeps the domain it was given out at, and the relay takes mail for
    /// an address at either.
    public enum AddressDomain: String, Sendable, CaseIterable, Codable {
        case privateRelay = "privaterelay.appleid.com"
        case privateICloud = "private.icloud.com"
    }

    /// Messages one relay address accepts in 24 hours of clock time; 0 for no limit.
    public var dailyLimit = 100
    /// `relay.addressDomain`: the domain new relay addresses are given out at; nil when the scenario
    /// names none (``newAddressDomain``, ``unrecordedAddressDomain``).
    public var addressDomain: AddressDomain?
    public var senderRejection = SenderRejection.unauthorizedSender
    /// The largest message accepted over SMTP (advertised with `SIZE`), in bytes.
    public var maxMessageSize = 10 * 1024 * 1024
    /// Messages kept across all inboxes; the oldest go first.
    public var inboxCapacity = 1000

    /// Bounds of the knobs.
    public static let largestMessageSize = 50 * 1024 * 1024
    public static let largestInboxCapacity = 100_000

    public init() {}

    /// The domain new relay addresses are given out at: `private.icloud.com` unless the scenario names one.
    public var newAddressDomain: AddressDomain { addressDomain ?? .privateICloud }

    /// The domain of an address in use in a state written by a version that recorded no domain per address:
    /// the one that version gave out under the same scenario (`privaterelay.appleid.com` unless it named one).
    public var unrecordedAddressDomain: AddressDomain { addressDomain ?? .privateRelay }
}
