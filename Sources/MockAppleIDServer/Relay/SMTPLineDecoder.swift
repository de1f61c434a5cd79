import NIOCore

/// A line of an SMTP conversation, or the mark of one longer than the limit (its bytes discarded).
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

    /// Whether the line ended in a bare LF.
    var endedInBareLF: Bool {
        switch self {
        case .bareLF, .bareCR(_, endedInCRLF: false), .tooLong(endedInCRLF: false): return true
        case .text, .bareCR, .tooLong: return false
        }
    }

    /// The line's text however it ended (nil for a line too long).
    var lenientText: String? {
        switch self {
        case let .text(text), let .bareLF(text), let .bareCR(text, _): return text
        case .tooLong: return nil
        }
    }
}

/// Splits the byte stream into lines ending in LF, telling a line that ended in CRLF from one that
/// ended in a bare LF and from one that holds a bare CR. A line longer than `limit` is never buffered
/// whole: its bytes are dropped as they arrive and one ``SMTPLine/tooLong(endedInCRLF:)`` stands for it
/// (whether its last dropped byte was the CR of its CRLF is remembered), so a peer that never sends a
/// line end costs no memory.
struct SMTPLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPLine

    let limit: Int
    private var discarding = false
    /// While discarding: whether the last byte dropped was a CR.
    private var droppedCR = false

    init(limit: Int) { self.limit = limit }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
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
            context.fireChannelRead(wrapInboundOut(.tooLong(endedInCRLF: endedInCRLF)))
        } else {
            let text = String(decoding: line, as: UTF8.self)
            let read: SMTPLine = line.contains(UInt8(ascii: "\r")) ? .bareCR(text, endedInCRLF: endedInCRLF)
                : endedInCRLF ? .text(text) : .bareLF(text)
            context.fireChannelRead(wrapInboundOut(read))
        }
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
