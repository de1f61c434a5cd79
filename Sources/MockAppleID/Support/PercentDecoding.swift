extension StringProtocol {
    /// The text with its `%XX` escapes undone, as Foundation's `removingPercentEncoding` does (nil for a `%`
    /// not followed by two hex digits, or for bytes that are not UTF-8), in Swift alone: Foundation's goes
    /// through NSString, whose first use costs a process a scan of the runtime's protocol conformances
    /// (about half a millisecond of start-up, where the scenario's return URLs are checked).
    package var percentDecoded: String? {
        guard utf8.contains(UInt8(ascii: "%")) else { return String(self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Hex.value(ofDigit:)), let low = iterator.next().flatMap(Hex.value(ofDigit:)) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
