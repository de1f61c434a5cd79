import Foundation
import NIOCore
import Synchronization

/// A line of an SMTP conversation, or the mark of one longer than the limit (its bytes discarded), or
/// message text read in one go.
enum SMTPLine: Sendable, Equatable {
    /// A line that ended in CRLF and holds no other CR.
    case text(String)
    /// A line that ended in a bare LF (RFC 5321 §2.3.8 allows none): read as if it ended in CRLF, except
    /// that `.` on such a line, or right after it, does not end a message, so no second message can hide
    /// behind it ("SMTP smuggling").
    case bareLF(String)
    /// A line that holds a bare CR, which some servers take for a line end: refused in message text, so
    /// that none is passed on. It ended in CRLF, or in a bare LF.
    case bareCR(String, endedInCRLF: Bool)
    /// A line longer than the limit, which ended in CRLF or in a bare LF.
    case tooLong(endedInCRLF: Bool)
    /// Lines of a message, read while ``SMTPDataMode`` is on.
    case messageText(SMTPMessageText)

    /// Whether the line (a message text's last) ended in a bare LF.
    var endedInBareLF: Bool {
        switch self {
        case .bareLF, .bareCR(_, endedInCRLF: false), .tooLong(endedInCRLF: false): return true
        case let .messageText(text): return text.endedInBareLF
        case .text, .bareCR, .tooLong: return false
        }
    }

    /// The line's text however it ended (nil for a line too long, and for message text).
    var lenientText: String? {
        switch self {
        case let .text(text), let .bareLF(text), let .bareCR(text, _): return text
        case .tooLong, .messageText: return nil
        }
    }
}

/// Asks a conversation's line decoder to read a message's text as bytes (after the `354`): the decoder then
/// hands the message's lines on a read's worth at a time (``SMTPMessageText``) rather than line by line, so
/// that a message of millions of short lines costs a scan of its bytes, not an element, a string and a reply
/// per line, and goes back to lines at the message's end. The session and the decoder run apart, so the ask
/// says how many elements the session has taken: the decoder switches only when it has handed on exactly
/// those (a client that sent its message before the `354` had it read line by line, as before).
final class SMTPDataMode: Sendable {
    /// The elements taken when the session asked; -1 when it has not.
    private let asked = Atomic<Int>(-1)

    /// The message's text starts after the `taken` elements the session has had from the decoder.
    func begin(after taken: Int) { asked.store(taken, ordering: .releasing) }

    /// The ask, taken once: whether the decoder, having handed on `fired` elements, reads message text now.
    fileprivate func starts(after fired: Int) -> Bool {
        let taken = asked.exchange(-1, ordering: .acquiringAndReleasing)
        return taken >= 0 && taken == fired
    }
}

/// Lines of a message as the session takes them: dot-unstuffed, each ending in CRLF (one that ended in a bare
/// LF too, as Postfix's `smtpd_forbid_bare_newline = normalize` reads it), how many they were, and what
/// refuses the message when a line does (its bytes are then left out).
struct SMTPMessageText: Sendable, Equatable {
    /// The first line that refuses the message, and how many lines and bytes came before it in this text (the
    /// session judges those first, as it would line by line).
    struct Refusal: Sendable, Equatable {
        enum Kind: Sendable, Equatable {
            case bareCR
            case tooLong
        }

        var kind: Kind
        var linesBefore: Int
        var bytesBefore: Int
    }

    var bytes: ByteBuffer
    var lines = 0
    var refusal: Refusal?
    /// The last line ended in a bare LF: a `.` on the next does not end the message.
    var endedInBareLF = false
}

/// Splits the byte stream into lines ending in LF, telling a line that ended in CRLF from one that
/// ended in a bare LF and from one that holds a bare CR. A line longer than `limit` is never buffered
/// whole: its bytes are dropped as they arrive and one ``SMTPLine/tooLong(endedInCRLF:)`` stands for it
/// (whether its last dropped byte was the CR of its CRLF is remembered), so a peer that never sends a
/// line end costs no memory.
struct SMTPLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPLine

    let limit: Int
    /// Tells when the conversation reads a message (nil: never, as for the replies of a server the relay forwards to).
    let dataMode: SMTPDataMode?
    private var discarding = false
    /// While discarding: whether the last byte dropped was a CR.
    private var droppedCR = false
    /// Reading a message's text (see ``SMTPDataMode``), and whether its last line ended in a bare LF.
    private var readingMessage = false
    private var afterBareLF = false
    /// Elements handed on so far.
    private var fired = 0

    init(limit: Int, dataMode: SMTPDataMode? = nil) {
        self.limit = limit
        self.dataMode = dataMode
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if let dataMode, !readingMessage, dataMode.starts(after: fired) { readingMessage = true }
        if readingMessage { return decodeMessageText(context: context, buffer: &buffer) }
        guard let end = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > limit {
                droppedCR = buffer.readableBytesView.last == UInt8(ascii: "\r")
                buffer.moveReaderIndex(to: buffer.writerIndex)
                discarding = true
            }
            return .needMoreData
        }
        let length = end - buffer.readerIndex
        var line = buffer.readableBytesView.prefix(length)
        buffer.moveReaderIndex(forwardBy: length + 1)
        let endedInCRLF = line.last.map { $0 == UInt8(ascii: "\r") } ?? (discarding && droppedCR)
        if endedInCRLF, !line.isEmpty { line = line.dropLast() }
        if discarding || line.count > limit {
            discarding = false
            droppedCR = false
            fire(.tooLong(endedInCRLF: endedInCRLF), context)
        } else {
            let text = String(decoding: line, as: UTF8.self)
            let read: SMTPLine = line.contains(UInt8(ascii: "\r")) ? .bareCR(text, endedInCRLF: endedInCRLF)
                : endedInCRLF ? .text(text) : .bareLF(text)
            fire(read, context)
        }
        return .continue
    }

    /// Message text: every whole line in `buffer` at once, its bytes copied in runs (a line that is neither
    /// dot-stuffed nor ended in a bare LF is copied as it is), up to the `.` line that ends the message, which
    /// is handed on as ``SMTPLine/text(_:)`` once the mode is off again (what follows is read as commands).
    private mutating func fire(_ line: SMTPLine, _ context: ChannelHandlerContext) {
        fired += 1
        context.fireChannelRead(wrapInboundOut(line))
    }

    private mutating func decodeMessageText(context: ChannelHandlerContext, buffer: inout ByteBuffer) -> DecodingState {
        var text = SMTPMessageText(bytes: context.channel.allocator.buffer(capacity: buffer.readableBytes), endedInBareLF: afterBareLF)
        var ended = false
        let consumed = buffer.withUnsafeReadableBytes { bytes -> Int in
            guard let base = bytes.baseAddress else { return 0 }
            var start = 0, run = 0
            func copy(_ range: Range<Int>) {
                if text.refusal == nil, !range.isEmpty { text.bytes.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[range])) }
            }
            while start < bytes.count, let found = memchr(base + start, 0x0A, bytes.count - start) {
                let lf = base.distance(to: found)
                let endedInCRLF = lf > start ? bytes[lf - 1] == 0x0D : discarding && droppedCR
                let contentEnd = endedInCRLF && lf > start ? lf - 1 : lf
                let length = contentEnd - start
                if endedInCRLF, length == 1, bytes[start] == UInt8(ascii: "."), !afterBareLF, !discarding {
                    copy(run..<start)
                    (start, run, ended) = (lf + 1, lf + 1, true)
                    break
                }
                text.lines += 1
                let tooLong = discarding || length > limit
                let bareCR = !tooLong && length > 0 && memchr(base + start, 0x0D, length) != nil
                let stuffed = length > 0 && bytes[start] == UInt8(ascii: ".")
                if tooLong || bareCR || stuffed || !endedInCRLF {
                    copy(run..<start)
                    if tooLong || bareCR {
                        text.refusal = text.refusal ?? .init(kind: tooLong ? .tooLong : .bareCR, linesBefore: text.lines - 1,
                                                             bytesBefore: text.bytes.readableBytes)
                    } else {
                        copy((stuffed ? start + 1 : start)..<contentEnd)
                        if text.refusal == nil { text.bytes.writeBytes([0x0D, 0x0A]) }
                    }
                    run = lf + 1
                }
                (discarding, droppedCR, afterBareLF) = (false, false, !endedInCRLF)
                start = lf + 1
            }
            if !ended { copy(run..<start) }
            return start
        }
        buffer.moveReaderIndex(forwardBy: consumed)
        text.endedInBareLF = afterBareLF
        if text.lines > 0 { fire(.messageText(text), context) }
        if ended {
            (readingMessage, afterBareLF) = (false, false)
            fire(.text("."), context)
            return .continue
        }
        // A line longer than the limit is dropped as it comes, as between commands.
        if buffer.readableBytes > limit {
            droppedCR = buffer.readableBytesView.last == UInt8(ascii: "\r")
            buffer.moveReaderIndex(to: buffer.writerIndex)
            discarding = true
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
