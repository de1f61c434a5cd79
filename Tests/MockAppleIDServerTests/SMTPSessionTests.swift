import Foundation
import MockAppleID
@testable import MockAppleIDServer
import NIOCore
import NIOEmbedded
import Testing

/// The relay's SMTP conversation without a socket: replies to each line, transaction order, DATA
/// with dot-unstuffing and the size limit (over a real socket: Tests/Conformance/test_relay.py).
@Suite("SMTP session")
struct SMTPSessionTests {
    static func session(messageSize: Int = 1024) throws -> (SMTPSession, AppleIDProvider, String) {
        let provider = try Harness.provider()
        let address = try hidingSignIn(provider, "john")
        return (SMTPSession(relay: provider, limits: SMTPSession.Limits(messageSize: messageSize)), provider, address)
    }

    /// Signs `persona` in to the web client hiding their email; returns the relay address now in use.
    static func hidingSignIn(_ provider: AppleIDProvider, _ persona: String) throws -> String {
        let params = FormParameters([("client_id", Harness.webClient), ("redirect_uri", Harness.redirect),
                                     ("response_type", "code"), ("response_mode", "form_post"), ("scope", "name email"), ("state", "s")]
            .map { FormParameters.Pair($0.0, $0.1) })
        _ = try provider.completeAuthorization(params, decision: .approve(personaID: persona, emailChoice: .hide, name: nil))
        return try provider.relayAddress(personaID: persona, app: Harness.webClient)
    }

    static func replies(_ session: inout SMTPSession, _ lines: [String]) -> [String] {
        lines.flatMap { session.handle(.text($0)).lines }
    }

    @Test("a whole transaction: EHLO advertises SIZE and 8BITMIME, the message arrives dot-unstuffed")
    func transaction() throws {
        var (session, provider, address) = try Self.session()
        #expect(session.greeting.hasPrefix("220 smtp1.privaterelay.appleid.com"))
        let replies = Self.replies(&session, [
            "EHLO shop.example.com", "MAIL FROM:<news@example.com> SIZE=100 BODY=8BITMIME", "RCPT TO:<\(address)>", "DATA",
            "From: news@example.com", "Subject: Dots", "", "..leading dot", "plain", ".",
        ])
        #expect(replies.prefix(5) == ["250-smtp1.privaterelay.appleid.com greets shop.example.com", "250-SIZE 1024", "250-8BITMIME",
                                      "250-PIPELINING", "250 ENHANCEDSTATUSCODES"])
        #expect(replies[5...7] == ["250 2.1.0 OK", "250 2.1.5 OK", "354 End data with <CR><LF>.<CR><LF>"])
        let message = try #require(provider.relayMessages().first)
        #expect(replies.last == "250 2.0.0 OK: queued as \(message.id)")
        #expect(message.body == ".leading dot\nplain\n" && message.subject == "Dots")
        #expect(Self.replies(&session, ["QUIT"]) == ["221 2.0.0 Bye"] && session.handle(.text("QUIT")).close)
    }

    @Test("commands out of order and malformed ones get 5xx, and the conversation goes on")
    func sequence() throws {
        var (session, _, address) = try Self.session()
        let replies = Self.replies(&session, [
            "MAIL FROM:<news@example.com>", "EHLO", "HELO shop", "RCPT TO:<\(address)>", "DATA", "MAIL FROM:news@example.com",
            "MAIL FROM:<news@example.com> SIZE=4096", "MAIL FROM:<news@example.com> FOO=1", "MAIL FROM:<>", "MAIL FROM:<x@example.com>",
            "RCPT TO:<\(address)>", "DATA extra", "", "TURN", "RSET", "NOOP",
        ])
        #expect(replies.map { String($0.prefix(9)) } == [
            "503 5.5.1", "501 5.5.4", "250 smtp1", "503 5.5.1", "503 5.5.1", "501 5.5.4", "552 5.3.4", "555 5.5.4", "250 2.1.0",
            "503 5.5.1", "550 5.1.1", "501 5.5.4", "500 5.5.2", "502 5.5.1", "250 2.0.0", "250 2.0.0",
        ])
    }

    @Test("an over-long command and an over-long message are refused; the session stays usable")
    func limits() throws {
        var (session, provider, address) = try Self.session(messageSize: 64)
        #expect(session.handle(.tooLong(endedInCRLF: true)).lines == ["500 5.5.2 Line too long"])
        #expect(session.handle(.text(String(repeating: "a", count: 600))).lines == ["500 5.5.2 Line too long"])
        let replies = Self.replies(&session, ["HELO shop", "MAIL FROM:<news@example.com>", "RCPT TO:<\(address)>", "DATA",
                                              String(repeating: "x", count: 100), "."])
        #expect(replies.last == "552 5.3.4 Message size exceeds the limit of 64 bytes" && provider.relayMessages().isEmpty)
        let again = Self.replies(&session, ["MAIL FROM:<news@example.com>", "RCPT TO:<\(address)>", "DATA", "From: news@example.com", "", "x", "."])
        #expect(again.last?.hasPrefix("250 2.0.0 OK") == true)
        #expect(Self.replies(&session, ["MAIL FROM:<news@example.com>", "RCPT TO:<\(address)>", "DATA"]).last?.hasPrefix("354") == true)
        #expect(session.handle(.tooLong(endedInCRLF: true)).lines.isEmpty && session.handle(.text(".")).lines == ["500 5.5.2 Line too long"])
    }

    @Test("a repeated recipient counts once; the recipient limit gives 452; refusals and bad commands count as errors, twenty and the relay hangs up")
    func counts() throws {
        var (full, provider, address) = try Self.session()
        var session = SMTPSession(relay: provider, limits: SMTPSession.Limits(messageSize: 1024, recipients: 1))
        let janes = try Self.hidingSignIn(provider, "jane")
        let replies = Self.replies(&session, ["HELO shop", "MAIL FROM:<news@example.com>", "RCPT TO:<\(address)>",
                                              "RCPT TO:<\(address.uppercased())>", "RCPT TO:<\(janes)>", "DATA", "From: news@example.com", "Subject: once", "", "x", "."])
        #expect(replies[2...4] == ["250 2.1.5 OK", "250 2.1.5 OK", "452 4.5.3 Too many recipients"])
        #expect(provider.relayMessages().count == 1)
        _ = Self.replies(&full, ["HELO shop", "MAIL FROM:<news@example.com>"])
        let refusals = Self.replies(&full, Array(repeating: "RCPT TO:<nobody0000@privaterelay.appleid.com>", count: 10))
        #expect(refusals.allSatisfy { $0.hasPrefix("550 5.1.1") })
        session = full
        let errors = (0..<9).map { _ in session.handle(.text("BOGUS")) }
        #expect(errors.allSatisfy { !$0.close })
        #expect(session.handle(.text("BOGUS")) == SMTPSession.Response(lines: ["421 4.7.0 Too many errors, closing"], close: true))
    }

    @Test("only <CRLF>.<CRLF> ends a message: a bare-LF line is a line of it, its `.` too; a bare CR refuses the message")
    func bareNewlines() throws {
        var (session, provider, address) = try Self.session()
        _ = Self.replies(&session, ["HELO shop", "MAIL FROM:<news@example.com>", "RCPT TO:<\(address)>", "DATA", "From: news@example.com",
                                    "Subject: outer", "", "outer"])
        for smuggled in [SMTPLine.bareLF("."), .bareLF("MAIL FROM:<news@example.com>"), .text("RCPT TO:<\(address)>"), .bareLF("DATA"),
                         .text(".")] {
            #expect(session.isMessageText(smuggled))
            #expect(session.handle(smuggled).lines.isEmpty)
        }
        #expect(session.handle(.text(".")).lines.first?.hasPrefix("250 2.0.0 OK") == true)
        let message = try #require(provider.relayMessages().last)
        #expect(message.subject == "outer" && message.body == "outer\n\nMAIL FROM:<news@example.com>\nRCPT TO:<\(address)>\nDATA\n\n")
        #expect(provider.relayMessages().count == 1)

        _ = Self.replies(&session, ["MAIL FROM:<news@example.com>", "RCPT TO:<\(address)>", "DATA", "From: news@example.com", ""])
        #expect(session.handle(.bareCR("a\r.\rb", endedInCRLF: false)).lines.isEmpty)
        #expect(session.handle(.text(".")).lines.isEmpty)  // after a bare LF: a line of the message
        #expect(Self.replies(&session, ["more", "."]) == [SMTPSession.bareCRRefusal])
        #expect(provider.relayMessages().count == 1)
        #expect(session.handle(.bareLF("NOOP")).lines == ["250 2.0.0 OK"])  // commands are read leniently

        // An over-long line that ended in a bare LF hides no end of message either.
        _ = Self.replies(&session, ["MAIL FROM:<news@example.com>", "RCPT TO:<\(address)>", "DATA", "From: news@example.com", ""])
        #expect(session.handle(.tooLong(endedInCRLF: false)).lines.isEmpty)
        #expect(session.handle(.text(".")).lines.isEmpty)
        #expect(Self.replies(&session, ["MAIL FROM:<news@example.com>", "."]) == ["500 5.5.2 Line too long"])
        #expect(provider.relayMessages().count == 1)
    }

    @Test("an address with a NUL, a CR or another control character is a syntax error")
    func controlCharactersInAddresses() throws {
        var (session, _, address) = try Self.session()
        let replies = Self.replies(&session, ["HELO shop", "MAIL FROM:<news\u{0}@example.com>", "MAIL FROM:<news\r@example.com>",
                                              "MAIL FROM:<news@example.com>", "RCPT TO:<\(address)\u{7F}>", "RCPT TO:<\(address)>"])
        #expect(replies.map { String($0.prefix(9)) } == ["250 smtp1", "501 5.5.4", "501 5.5.4", "250 2.1.0", "501 5.5.4", "250 2.1.5"])
    }

    @Test("the line decoder tells CRLF lines from bare-LF and bare-CR ones, and drops an over-long line as it arrives")
    func lineDecoder() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(SMTPLineDecoder(limit: 16)))
        try channel.writeInbound(ByteBuffer(string: "EHLO a\r\nouter\n.\nx\ry\r\nplain\r\r\n" + String(repeating: "z", count: 40)))
        try channel.writeInbound(ByteBuffer(string: "zz\r\n.\r\n"))
        var lines: [SMTPLine] = []
        while let line = try channel.readInbound(as: SMTPLine.self) { lines.append(line) }
        #expect(lines == [.text("EHLO a"), .bareLF("outer"), .bareLF("."), .bareCR("x\ry", endedInCRLF: true), .bareCR("plain\r", endedInCRLF: true),
                          .tooLong(endedInCRLF: true), .text(".")])
        // An over-long line's end is known even when its CR was dropped with the rest of it.
        try channel.writeInbound(ByteBuffer(string: String(repeating: "z", count: 40) + "\n.\r\n" + String(repeating: "y", count: 40) + "\r"))
        try channel.writeInbound(ByteBuffer(string: "\n"))
        lines = []
        while let line = try channel.readInbound(as: SMTPLine.self) { lines.append(line) }
        #expect(lines == [.tooLong(endedInCRLF: false), .text("."), .tooLong(endedInCRLF: true)])
        _ = try channel.finish()
    }

    @Test("reading a message, the decoder hands its lines on as bytes: unstuffed, a bare LF read as CRLF, the end found across reads; then commands again")
    func messageTextDecoder() throws {
        let mode = SMTPDataMode()
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(SMTPLineDecoder(limit: 16, dataMode: mode)))
        mode.begin(after: 0)
        try channel.writeInbound(ByteBuffer(string: "Subject: a\r\n\r\n..dot\r\nbare\n.\r\nlast\r\n\r"))
        try channel.writeInbound(ByteBuffer(string: "\n.\r\nQUIT\r\n"))
        var lines: [SMTPLine] = []
        while let line = try channel.readInbound(as: SMTPLine.self) { lines.append(line) }
        #expect(lines == [.messageText(SMTPMessageText(bytes: ByteBuffer(string: "Subject: a\r\n\r\n.dot\r\nbare\r\n\r\nlast\r\n"), lines: 6)),
                          .messageText(SMTPMessageText(bytes: ByteBuffer(string: "\r\n"), lines: 1)), .text("."), .text("QUIT")])
        // Asked after fewer elements than were handed on (a client that did not wait for the 354): lines, as before.
        mode.begin(after: 3)
        try channel.writeInbound(ByteBuffer(string: "x\r\n"))
        #expect(try channel.readInbound(as: SMTPLine.self) == .text("x"))
        // A bare CR refuses the message (nothing after it is kept), an over-long line is dropped as it comes, and a
        // `.` after a bare LF is a line of the message.
        mode.begin(after: 5)
        try channel.writeInbound(ByteBuffer(string: "a\r\nx\ry\r\n" + String(repeating: "z", count: 40)))
        try channel.writeInbound(ByteBuffer(string: "\r\nb\n.\r\n.\r\n"))
        lines = []
        while let line = try channel.readInbound(as: SMTPLine.self) { lines.append(line) }
        #expect(lines == [.messageText(SMTPMessageText(bytes: ByteBuffer(string: "a\r\n"), lines: 2,
                                                       refusal: .init(kind: .bareCR, linesBefore: 1, bytesBefore: 3))),
                          .messageText(SMTPMessageText(bytes: ByteBuffer(), lines: 3, refusal: .init(kind: .tooLong, linesBefore: 0, bytesBefore: 0))),
                          .text(".")])
        _ = try channel.finish()
    }

    @Test("message text read as bytes is delivered as line by line; more lines than the limit refuse the message at its end")
    func messageTextAndTheLineLimit() throws {
        let provider = try Harness.provider()
        let address = try Self.hidingSignIn(provider, "john")
        var limits = SMTPSession.Limits(messageSize: 1024)
        limits.messageLines = 3
        for (lines, reply) in [(3, "250 2.0.0 OK"), (4, "552 5.3.4 Message has more than 3 lines")] {
            var session = SMTPSession(relay: provider, limits: limits)
            _ = Self.replies(&session, ["HELO shop", "MAIL FROM:<news@example.com>", "RCPT TO:<\(address)>", "DATA"])
            let text = "From: news@example.com\r\nSubject: bytes\r\n\r\n" + String(repeating: "line\r\n", count: lines - 3)
            #expect(session.handle(.messageText(SMTPMessageText(bytes: ByteBuffer(string: text), lines: lines))).lines.isEmpty)
            #expect(session.handle(.text(".")).lines.first?.hasPrefix(reply) == true)
        }
        #expect(provider.relayMessages().map(\.subject) == ["bytes"])
    }
}
