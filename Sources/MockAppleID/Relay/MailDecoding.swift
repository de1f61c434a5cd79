import Foundation

/// What a mail client shows of a message: header values with their RFC 2047 encoded words decoded, and the
/// text of its `text/plain` and `text/html` parts with their transfer encoding (quoted-printable, base64)
/// and charset undone, found through `multipart/*` bodies. Each level of nesting reads its part once, so
/// the cost is the message's size times its depth, which is bounded, as are the parts and the text kept.
enum MailDecoding {
    /// The most `multipart` levels and parts read, and the most characters of each text kept.
    static let depthLimit = 8
    static let partLimit = 64
    static let textLimit = 1_000_000

    // MARK: Header values (RFC 2047)

    /// `=?UTF-8?Q?Caf=C3=A9?= & co` → `Café & co`. White space between two encoded words is dropped; a
    /// word that cannot be decoded is kept as it is.
    static func headerValue(_ value: String) -> String {
        guard value.contains("=?") else { return value }
        var result = ""
        var pendingSpace = ""
        var lastWasEncoded = false
        var rest = Substring(value)
        while !rest.isEmpty {
            if rest.hasPrefix("=?"), let (decoded, after) = encodedWord(rest) {
                if !lastWasEncoded { result += pendingSpace }
                result += decoded
                pendingSpace = ""
                lastWasEncoded = true
                rest = after
            } else if let first = rest.first, first == " " || first == "\t" {
                pendingSpace.append(first)
                rest = rest.dropFirst()
            } else {
                result += pendingSpace
                pendingSpace = ""
                let end = rest.dropFirst().firstIndex { $0 == " " || $0 == "\t" || $0 == "=" } ?? rest.endIndex
                result += rest[..<end]
                lastWasEncoded = false
                rest = rest[end...]
            }
        }
        return result + pendingSpace
    }

    /// One `=?charset?encoding?text?=` at the start of `text`: its decoded text and what follows it.
    private static func encodedWord(_ text: Substring) -> (String, Substring)? {
        let parts = text.dropFirst(2).split(separator: "?", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[3].hasPrefix("="), parts[2].count <= 998 else { return nil }
        let charset = parts[0].split(separator: "*").first.map(String.init) ?? ""  // RFC 2231 language suffix
        let bytes: [UInt8]?
        switch parts[1].uppercased() {
        case "B": bytes = Data(base64Encoded: padded(String(parts[2]))).map(Array.init)
        case "Q": bytes = quotedPrintable(Substring(parts[2].replacingOccurrences(of: "_", with: " ")), softBreaks: false)
        default: bytes = nil
        }
        guard let bytes else { return nil }
        return (string(bytes, charset: charset), parts[3].dropFirst())
    }

    // MARK: Bodies (MIME)

    /// The decoded `text/plain` and `text/html` of a message (the first of each kind), or of its body as
    /// text when it declares no type.
    static func text(headers: [MailHeader], body: String) -> (plain: String?, html: String?) {
        var found: (plain: String?, html: String?) = (nil, nil)
        var parts = 0
        collect(headers: headers, body: Substring(body), depth: 0, parts: &parts, into: &found)
        return found
    }

    private static func collect(headers: [MailHeader], body: Substring, depth: Int, parts: inout Int,
                                into found: inout (plain: String?, html: String?)) {
        parts += 1
        guard parts <= partLimit else { return }
        let type = ContentType(headers.first { $0.name.caseInsensitiveCompare("Content-Type") == .orderedSame }?.value ?? "text/plain")
        if type.mediaType.hasPrefix("multipart/") {
            guard depth < depthLimit, let boundary = type.parameters["boundary"], !boundary.isEmpty else { return }
            for part in split(body, boundary: boundary) {
                let (partHeaders, partBody) = MailText.split(String(part))
                collect(headers: partHeaders, body: Substring(partBody), depth: depth + 1, parts: &parts, into: &found)
            }
            return
        }
        guard type.mediaType == "text/plain" || type.mediaType == "text/html" else { return }
        let encoding = headers.first { $0.name.caseInsensitiveCompare("Content-Transfer-Encoding") == .orderedSame }?.value
            .trimmingCharacters(in: .whitespaces).lowercased() ?? "7bit"
        let charset = type.parameters["charset"] ?? "us-ascii"
        let decoded: String
        switch encoding {
        case "quoted-printable": decoded = string(quotedPrintable(body, softBreaks: true) ?? Array(body.utf8), charset: charset)
        case "base64":
            let bytes = Data(base64Encoded: body.filter { !$0.isWhitespace }, options: .ignoreUnknownCharacters).map(Array.init)
            decoded = string(bytes ?? Array(body.utf8), charset: charset)
        default: decoded = String(body)  // 7bit, 8bit, binary: the relay read the message's bytes as UTF-8 already
        }
        let text = String(decoded.prefix(textLimit))
        if type.mediaType == "text/plain", found.plain == nil { found.plain = text }
        if type.mediaType == "text/html", found.html == nil { found.html = text }
    }

    /// The parts of a multipart body: what lies between `--boundary` lines, before the `--boundary--` line.
    /// Lines are found and compared by their bytes: a body of a million lines is read in one pass.
    private static func split(_ body: Substring, boundary: String) -> [Substring] {
        let delimiter = Array("--\(boundary)".utf8)
        let utf8 = body.utf8
        var parts: [Substring] = []
        var start: Substring.Index?
        var lineStart = body.startIndex
        while lineStart < body.endIndex {
            let lineEnd = utf8[lineStart...].firstIndex(of: 10) ?? body.endIndex
            var line = utf8[lineStart..<lineEnd]
            if line.last == 13 { line = line.dropLast() }
            let next = lineEnd < body.endIndex ? utf8.index(after: lineEnd) : lineEnd
            // A delimiter line is the boundary alone (white space after it allowed), or it with `--` at the end.
            if line.starts(with: delimiter) {
                let (isDelimiter, closing) = delimiterTail(line.dropFirst(delimiter.count))
                if isDelimiter {
                    if let start, lineStart > start { parts.append(body[start..<utf8.index(before: lineStart)]) }
                    if closing || parts.count >= partLimit { return parts }
                    start = next
                }
            }
            lineStart = next
        }
        if let start { parts.append(body[start...]) }
        return parts
    }

    /// Whether what follows the boundary on a line makes it a delimiter (nothing, or `--`, white space around it
    /// allowed), and whether it closes the body (`--`). ASCII is judged by its bytes; anything else as text.
    private static func delimiterTail(_ tail: Substring.UTF8View.SubSequence) -> (isDelimiter: Bool, closing: Bool) {
        let trimmed: [UInt8]
        if tail.allSatisfy({ $0 < 0x80 }) {
            trimmed = Array(tail.drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }.reversed())
        } else {
            trimmed = Array(String(decoding: tail, as: UTF8.self).trimmingCharacters(in: .whitespaces).utf8)
        }
        return (trimmed.isEmpty || trimmed == [45, 45], trimmed == [45, 45])
    }

    // MARK: Encodings

    /// Quoted-printable (RFC 2045 §6.7) to bytes; `softBreaks` removes `=` line ends. Nil when an `=` is
    /// not followed by two hex digits (or a line end).
    private static func quotedPrintable(_ text: Substring, softBreaks: Bool) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "=") else {
                bytes.append(byte)
                continue
            }
            if softBreaks, input.first == UInt8(ascii: "\n") || (input.first == UInt8(ascii: "\r") && input.dropFirst().first == UInt8(ascii: "\n")) {
                input = input.drop { $0 == UInt8(ascii: "\r") }.dropFirst()
                continue
            }
            guard input.count >= 2, let high = Hex.value(ofDigit: input[input.startIndex]), let low = Hex.value(ofDigit: input[input.startIndex + 1]) else { return nil }
            bytes.append(high << 4 | low)
            input = input.dropFirst(2)
        }
        return bytes
    }

    private static func padded(_ base64: String) -> String {
        base64 + String(repeating: "=", count: (4 - base64.count % 4) % 4)
    }

    /// Bytes in `charset` as text: UTF-8, US-ASCII, ISO-8859-1, Windows-1252 and UTF-16 by name; any other
    /// charset is read as UTF-8, invalid sequences replaced.
    static func string(_ bytes: [UInt8], charset: String) -> String {
        let encoding: String.Encoding
        switch charset.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) {
        case "iso-8859-1", "latin1", "iso_8859-1", "l1": encoding = .isoLatin1
        case "windows-1252", "cp1252": encoding = .windowsCP1252
        case "utf-16": encoding = .utf16
        case "utf-16be": encoding = .utf16BigEndian
        case "utf-16le": encoding = .utf16LittleEndian
        default: return String(decoding: bytes, as: UTF8.self)
        }
        return String(data: Data(bytes), encoding: encoding) ?? String(decoding: bytes, as: UTF8.self)
    }
}

/// A message as the relay reads it before delivering it: split and decoded once, off the world's lock.
struct ReceivedMail: Sendable {
    let headers: [MailHeader]
    let body: String
    /// The `From:` header as sent, when there is exactly one (the relay checks its sender).
    let fromHeader: String?
    let subject: String?
    let from: String?
    let to: String?
    let text: String?
    let html: String?

    init(_ data: String) {
        (headers, body) = MailText.split(data)
        let fields = headers
        func field(_ name: String) -> [String] { fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value) }
        let froms = field("From")
        fromHeader = froms.count == 1 ? froms[0] : nil
        subject = field("Subject").first.map(MailDecoding.headerValue)
        from = fromHeader.map(MailDecoding.headerValue)
        to = field("To").first.map(MailDecoding.headerValue)
        (text, html) = MailDecoding.text(headers: headers, body: body)
    }
}

/// A `Content-Type` value: the media type, lower-cased, and its parameters (names lower-cased, quotes taken off).
private struct ContentType {
    let mediaType: String
    let parameters: [String: String]

    init(_ value: String) {
        let pieces = value.split(separator: ";")
        mediaType = (pieces.first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        var parameters: [String: String] = [:]
        for piece in pieces.dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let name = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
            parameters[name] = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        self.parameters = parameters
    }
}
