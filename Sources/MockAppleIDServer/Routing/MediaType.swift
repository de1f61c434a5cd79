import Hummingbird

extension Request {
    /// Whether the body is declared as exactly `mediaType`: the `Content-Type` up to its first `;`,
    /// trimmed of spaces and tabs, compared without ASCII case (`application/json; charset=utf-8` is JSON,
    /// `application/jsonx` is not).
    func declares(_ mediaType: String) -> Bool {
        guard let value = headers[.contentType] else { return false }
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let declared = value.utf8.prefix { $0 != UInt8(ascii: ";") }.drop(while: isSpace)
        let end = declared.lastIndex { !isSpace($0) }.map(declared.index(after:)) ?? declared.startIndex
        return declared[..<end].elementsEqual(mediaType.utf8) { byte, wanted in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == wanted : byte == wanted
        }
    }

    /// Refuses a request whose body is not declared `application/json`.
    func requireJSONContentType() throws(AdminError) {
        guard declares("application/json") else {
            throw AdminError(status: .unsupportedMediaType, code: "unsupported_media_type",
                             message: "admin writes must be sent with Content-Type: application/json")
        }
    }
}
