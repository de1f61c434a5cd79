import Foundation
import MockAppleID

/// What the relay answers to one SMTP conversation, independent of the socket: the state of the
/// conversation (greeted, in a transaction, reading `DATA`) and the reply to each line. The
/// listener feeds it lines and writes its replies.
struct SMTPSession {
    /// The limits of one conversation.
    struct Limits: Sendable {
        /// The largest message, advertised with `SIZE`.
        var messageSize: Int
        /// The longest command line (RFC 5321: 512 bytes with CRLF).
        var commandLength = 512
        var recipients = 100
        /// Bad commands before the relay hangs up.
        var errors = 20
        /// The most lines a message may have (a message of empty lines within the size limit has millions,
        /// each a line to split and decode), as Postfix bounds a message's header block.
        var messageLines = 1_000_000
    }

    /// The relay's answers to one line: reply lines to send, and whether to close afterwards.
    struct Response: Equatable {
        var lines: [String] = []
        var close = false
    }

    private enum Phase {
        case connected
        case greeted
        case mail(from: String)
        case recipients(from: String, to: [String])
        case data(from: String, to: [String])
    }

    static let hostName = "smtp1.privaterelay.appleid.com"

    private let relay: AppleIDProvider
    private let limits: Limits
    private var phase = Phase.connected
    private var message: [UInt8] = []
    private var messageLines = 0
    private var messageFailure: String?
    /// The message's last line ended in a bare LF: a `.` after it does not end the message.
    private var afterBareLF = false
    /// The message the next line ends, read and decoded ahead (``prepare(_:)``).
    private var prepared: PreparedRelayMail?
    private var errors = 0

    init(relay: AppleIDProvider, limits: Limits) {
        self.relay = relay
        self.limits = limits
    }

    /// The banner sent on connect.
    var greeting: String { "220 \(Self.hostName) ESMTP mock-appleid private relay" }

    /// Whether `line` is message text, which changes nothing until the message ends (`.` on a line
    /// that ended in CRLF, after one that did).
    func isMessageText(_ line: SMTPLine) -> Bool {
        guard case .data = phase else { return false }
        return line != .text(".") || afterBareLF
    }

    /// Whether the conversation reads a message (its lines are message text until its end).
    var readsMessage: Bool {
        guard case .data = phase else { return false }
        return true
    }

    /// The reply to one line.
    mutating func handle(_ line: SMTPLine) -> Response {
        if case let .data(from, to) = phase { return readData(line, from: from, to: to) }
        guard let text = line.lenientText, text.utf8.count <= limits.commandLength else { return failed("500 5.5.2 Line too long") }
        let (verb, argument) = Self.split(text)
        switch verb {
        case "EHLO", "HELO":
            guard !argument.isEmpty else { return failed("501 5.5.4 \(verb) needs a domain or address") }
            phase = .greeted
            guard verb == "EHLO" else { return Response(lines: ["250 \(Self.hostName)"]) }
            return Response(lines: ["250-\(Self.hostName) greets \(argument.prefix(64))", "250-SIZE \(limits.messageSize)", "250-8BITMIME",
                                    "250-PIPELINING", "250 ENHANCEDSTATUSCODES"])
        case "MAIL": return mail(argument)
        case "RCPT": return recipient(argument)
        case "DATA":
            guard argument.isEmpty else { return failed("501 5.5.4 DATA takes no arguments") }
            guard case let .recipients(from, to) = phase else {
                return failed(inTransaction ? "554 5.5.1 No valid recipients" : "503 5.5.1 MAIL FROM and RCPT TO first")
            }
            phase = .data(from: from, to: to)
            message = []
            messageLines = 0
            messageFailure = nil
            afterBareLF = false
            return Response(lines: ["354 End data with <CR><LF>.<CR><LF>"])
        case "RSET":
            if case .connected = phase {} else { phase = .greeted }
            return Response(lines: ["250 2.0.0 OK"])
        case "NOOP": return Response(lines: ["250 2.0.0 OK"])
        case "QUIT": return Response(lines: ["221 2.0.0 Bye"], close: true)
        case "VRFY": return Response(lines: ["252 2.5.2 Cannot verify the user, but will take mail for a relay address"])
        case "": return failed("500 5.5.2 Empty command")
        default: return failed("502 5.5.1 Command not implemented: \(verb.prefix(16))")
        }
    }

    private var inTransaction: Bool {
        switch phase {
        case .mail, .recipients: return true
        default: return false
        }
    }

    private mutating func mail(_ argument: String) -> Response {
        guard case .greeted = phase else {
            return failed(inTransaction ? "503 5.5.1 Nested MAIL command" : "503 5.5.1 Send EHLO or HELO first")
        }
        guard let (path, parameters) = Self.path(argument, keyword: "FROM:") else { return failed("501 5.5.4 Syntax: MAIL FROM:<address>") }
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
            switch pair.first?.uppercased() {
            case "SIZE":
                guard pair.count == 2, let size = Int(pair[1]), size >= 0 else { return failed("501 5.5.4 SIZE needs a number") }
                if size > limits.messageSize { return failed("552 5.3.4 Message size exceeds the limit of \(limits.messageSize) bytes") }
            case "BODY":
                guard pair.count == 2, ["7BIT", "8BITMIME"].contains(pair[1].uppercased()) else { return failed("501 5.5.4 BODY is 7BIT or 8BITMIME") }
            default:
                return failed("555 5.5.4 Unsupported parameter \(parameter.prefix(32))")
            }
        }
        phase = .mail(from: path)
        return Response(lines: ["250 2.1.0 OK"])
    }

    private mutating func recipient(_ argument: String) -> Response {
        let (from, accepted): (String, [String])
        switch phase {
        case let .mail(sender): (from, accepted) = (sender, [])
        case let .recipients(sender, to): (from, accepted) = (sender, to)
        default: return failed("503 5.5.1 MAIL FROM first")
        }
        guard let (path, parameters) = Self.path(argument, keyword: "TO:"), !path.isEmpty, parameters.isEmpty else {
            return failed("501 5.5.4 Syntax: RCPT TO:<address>")
        }
        if accepted.contains(where: { $0.caseInsensitiveCompare(path) == .orderedSame }) { return Response(lines: ["250 2.1.5 OK"]) }
        guard accepted.count < limits.recipients else { return Response(lines: ["452 4.5.3 Too many recipients"]) }
        switch relay.checkRelayRecipient(path, sender: from) {
        case let .failure(rejection): return failed(rejection.reply)
        case .success:
            phase = .recipients(from: from, to: accepted + [path])
            return Response(lines: ["250 2.1.5 OK"])
        }
    }

    private mutating func readData(_ line: SMTPLine, from: String, to: [String]) -> Response {
        // Only <CRLF>.<CRLF> ends a message. A line that ended in a bare LF is a line of the message (as
        // Postfix's `smtpd_forbid_bare_newline = normalize` takes it), and so is a `.` on it or after it;
        // a bare CR refuses the message.
        defer { afterBareLF = line.endedInBareLF }
        switch line {
        case .text(".") where !afterBareLF: return finishData(from: from, to: to)
        case let .text(line), let .bareLF(line):
            let unstuffed = line.hasPrefix(".") ? line.utf8.dropFirst() : line.utf8[...]
            append(lines: 1) { $0 += unstuffed; $0 += [13, 10] }
        case .bareCR: refuse(Self.bareCRRefusal, lines: 1)
        case .tooLong: refuse(Self.tooLongRefusal, lines: 1)
        case let .messageText(text):
            guard let refusal = text.refusal else {
                append(lines: text.lines, bytes: text.bytes.readableBytes) { $0 += text.bytes.readableBytesView }
                break
            }
            // What came before the refusing line is judged first (it may be over a limit already), as line by line.
            append(lines: refusal.linesBefore, bytes: refusal.bytesBefore) { $0 += text.bytes.readableBytesView }
            refuse(refusal.kind == .bareCR ? Self.bareCRRefusal : Self.tooLongRefusal, lines: text.lines - refusal.linesBefore)
        }
        return Response()
    }

    /// Adds `lines` lines (`bytes` bytes, CRLFs included) to the message with `write`, unless the message is
    /// refused already, or is refused for them: too many lines, or too large.
    private mutating func append(lines: Int, bytes: Int? = nil, _ write: (inout [UInt8]) -> Void) {
        messageLines += lines
        guard messageFailure == nil else { return }
        if messageLines > limits.messageLines {
            refuse("552 5.3.4 Message has more than \(limits.messageLines) lines", lines: 0)
        } else if message.count + (bytes ?? 0) > limits.messageSize {
            refuse("552 5.3.4 Message size exceeds the limit of \(limits.messageSize) bytes", lines: 0)
        } else {
            write(&message)
            if message.count > limits.messageSize { refuse("552 5.3.4 Message size exceeds the limit of \(limits.messageSize) bytes", lines: 0) }
        }
    }

    /// The message is refused with `reply` at its end (the first refusal stands); what it holds is dropped.
    private mutating func refuse(_ reply: String, lines: Int) {
        messageLines += lines
        messageFailure = messageFailure ?? reply
        message = []
    }

    /// The message `line` ends, if it ends one that will be delivered: the listener reads and decodes it
    /// (``prepared``) off the event loop and before it holds the world, so that ``handle(_:)`` of that line only
    /// delivers it.
    func messageEnded(by line: SMTPLine) -> (from: String, to: [String], data: [UInt8])? {
        guard case let .data(from, to) = phase, line == .text("."), !afterBareLF, messageFailure == nil else { return nil }
        return (from, to, message)
    }

    /// The message the next line ends, read and decoded ahead (``messageEnded(by:)``).
    mutating func prepare(_ mail: PreparedRelayMail?) { prepared = mail }

    private mutating func finishData(from: String, to: [String]) -> Response {
        phase = .greeted
        defer {
            message = []
            prepared = nil
        }
        if let failure = messageFailure { return Response(lines: [failure]) }
        let mail = prepared ?? PreparedRelayMail(RelaySubmission(envelopeFrom: from, recipients: to, data: String(decoding: message, as: UTF8.self)))
        return Response(lines: [relay.deliverRelayMail(mail).reply])
    }

    /// The reply to a message with a bare CR in it.
    static let bareCRRefusal = "550 5.5.2 Bare <CR> in the message: lines end in <CR><LF> (RFC 5321 §2.3.8)"
    /// The reply to a message with a line over the limit.
    static let tooLongRefusal = "500 5.5.2 Line too long"

    /// Counts a bad command; too many and the relay hangs up.
    private mutating func failed(_ reply: String) -> Response {
        errors += 1
        guard errors < limits.errors else { return Response(lines: ["421 4.7.0 Too many errors, closing"], close: true) }
        return Response(lines: [reply])
    }

    /// The verb (upper-cased) and the rest of a command line.
    static func split(_ line: String) -> (String, String) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " ") else { return (trimmed.uppercased(), "") }
        return (trimmed[..<space].uppercased(), trimmed[space...].trimmingCharacters(in: .whitespaces))
    }

    /// `FROM:<a@b> PARAM=1` → (`a@b`, [`PARAM=1`]); nil when the keyword or the angle brackets are missing,
    /// or the address holds a space, an angle bracket or a control character (a NUL, a CR: RFC 5321's
    /// addresses have none, and one would be passed on to the upstream server when forwarding).
    static func path(_ argument: String, keyword: String) -> (String, [String])? {
        guard argument.uppercased().hasPrefix(keyword) else { return nil }
        let rest = argument.dropFirst(keyword.count).trimmingCharacters(in: .whitespaces)
        guard rest.hasPrefix("<"), let close = rest.firstIndex(of: ">") else { return nil }
        let path = String(rest[rest.index(after: rest.startIndex)..<close])
        guard !path.unicodeScalars.contains(where: { $0 == "<" || $0 == " " || $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        let parameters = rest[rest.index(after: close)...].split(separator: " ").map(String.init)
        return (path, parameters)
    }
}
