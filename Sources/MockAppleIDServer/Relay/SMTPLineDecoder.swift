import NIOCore

/// A line of an SMTP conversation, or the mark of one longer than the limit (its bytes discarded).
enum SMTPLine: Sendable, Equatable {
    case text(String)
    case tooLong
}

/// Splits the byte stream into lines ending in LF (a CR before it is dropped). A line longer than
/// `limit` is never buffered whole: its bytes are dropped as they arrive and one ``SMTPLine/tooLong``
/// stands for it, so a peer that never sends a line end costs no memory.
struct SMTPLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPLine

    let limit: Int
    private var discarding = false

    init(limit: Int) { self.limit = limit }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let end = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > limit {
                buffer.moveReaderIndex(to: buffer.writerIndex)
                discarding = true
            }
            return .needMoreData
        }
        let length = end - buffer.readerIndex
        var line = buffer.readableBytesView.prefix(length)
        buffer.moveReaderIndex(forwardBy: length + 1)
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        if discarding || line.count > limit {
            discarding = false
            context.fireChannelRead(wrapInboundOut(.tooLong))
        } else {
            context.fireChannelRead(wrapInboundOut(.text(String(decoding: line, as: UTF8.self))))
        }
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
