import Foundation

/// A message the relay accepted for a persona's relay address, as their inbox shows it: what a mail
/// client shows (`subject`, `from`, `to`, `text`, `html`, decoded) and the message as it was sent
/// (`headers` and `body`, nothing decoded).
public struct RelayMessage: Sendable, Equatable, Codable, Identifiable {
    /// The relay's own id for the message.
    public let id: String
    public let receivedAt: Date
    /// The SMTP envelope sender (`MAIL FROM`).
    public let envelopeFrom: String
    /// The relay address it was sent to.
    public let relayAddress: String
    public let personaID: String
    public let teamID: String
    /// Where Apple would forward it: the persona's own address.
    public let forwardTo: String?
    /// The header fields in order, unfolded, as sent (encoded words not decoded).
    public let headers: [MailHeader]
    /// The `Subject:` header, its encoded words decoded (`=?UTF-8?Q?Caf=C3=A9?=` → `Café`).
    public let subject: String?
    /// The `From:` header, decoded (`Café <news@example.com>`).
    public let from: String?
    /// The `To:` header, decoded.
    public let to: String?
    /// The first `text/plain` part (or the body, when it declares no type), its transfer encoding and
    /// charset undone; nil when there is none.
    public let text: String?
    /// The first `text/html` part, decoded likewise; nil when there is none.
    public let html: String?
    /// Everything after the header block, as sent (transfer-encoded parts are not decoded).
    public let body: String
    /// Size of the message as received, in bytes.
    public let size: Int
    /// How forwarding to the upstream server went, once tried (nil: not forwarded).
    public internal(set) var forwarded: String?

    /// What keeping it costs the inbox's byte budget: the message as received and its decoded text.
    var keptBytes: Int { size + (text?.utf8.count ?? 0) + (html?.utf8.count ?? 0) }
}

/// One header field.
public struct MailHeader: Sendable, Equatable, Codable {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An SMTP envelope and message handed to the relay (by the SMTP listener, a timeline or the Swift API).
public struct RelaySubmission: Sendable {
    /// `MAIL FROM` (empty for a null sender).
    public var envelopeFrom: String
    /// `RCPT TO` addresses the listener accepted.
    public var recipients: [String]
    /// The message text: header block, blank line, body (CRLF or LF line ends).
    public var data: String

    public init(envelopeFrom: String, recipients: [String], data: String) {
        self.envelopeFrom = envelopeFrom
        self.recipients = recipients
        self.data = data
    }
}

/// A submission read and decoded (``RelayMessage``'s `subject`, `text`, …) before it is delivered, so that
/// the work is done before the world is held (with a store several servers share, every server waits on a hold).
public struct PreparedRelayMail: Sendable {
    public let submission: RelaySubmission
    let mail: ReceivedMail

    public init(_ submission: RelaySubmission) {
        self.submission = submission
        self.mail = ReceivedMail(submission.data)
    }
}

/// Why the relay refused a recipient: each is an SMTP reply as Apple's relay gives it.
public struct RelayRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
    enum Base: Sendable, Equatable {
        /// No persona has this relay address (or the account was deleted, or every consent using it ended).
        case unknownAddress(String)
        /// Forwarding is off for the address (the person turned it off for the app, or for every address).
        case forwardingDisabled(String)
        /// The sender is not one of the team's registered email sources.
        case unauthorizedSender(address: String, sender: String, wording: RelayOptions.SenderRejection)
        /// The address took its daily number of messages already.
        case dailyLimit(address: String, limit: Int)
    }

    /// Which of them.
    let base: Base

    /// No persona has this relay address (or the account was deleted, or every consent using it ended).
    public static func unknownAddress(_ address: String) -> Self { Self(base: .unknownAddress(address)) }
    /// Forwarding is off for the address (the person turned it off for the app, or for every address).
    public static func forwardingDisabled(_ address: String) -> Self { Self(base: .forwardingDisabled(address)) }
    /// The sender is not one of the team's registered email sources.
    public static func unauthorizedSender(address: String, sender: String, wording: RelayOptions.SenderRejection) -> Self {
        Self(base: .unauthorizedSender(address: address, sender: sender, wording: wording))
    }
    /// The address took its daily number of messages already.
    public static func dailyLimit(address: String, limit: Int) -> Self { Self(base: .dailyLimit(address: address, limit: limit)) }

    /// The SMTP reply line.
    public var reply: String {
        switch base {
        case let .unknownAddress(address), let .forwardingDisabled(address): return "550 5.1.1 <\(address)>: user not found"
        case let .unauthorizedSender(address, _, wording): return "550 5.1.1 <\(address)>: \(wording.rawValue)"
        case let .dailyLimit(address, limit): return "550 5.7.1 <\(address)>: daily limit of \(limit) messages reached"
        }
    }

    /// Why, in words (the journal's reason).
    public var description: String { reason }

    /// Why, in words, for the journal.
    public var reason: String {
        switch base {
        case let .unknownAddress(address): return "\(address) is not a relay address of any persona"
        case let .forwardingDisabled(address): return "forwarding is off for \(address)"
        case let .unauthorizedSender(address, sender, _):
            return "sender \(sender.isEmpty ? "<>" : sender) is not an email source registered for the team of \(address)"
        case let .dailyLimit(address, limit): return "\(address) took \(limit) messages in the last 24 hours"
        }
    }
}
