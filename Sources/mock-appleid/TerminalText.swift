extension String {
    /// The text with every control character but line feed and tab written as `\u{…}`, so that what a server
    /// answered cannot move a terminal's cursor, change its title or colours, or hide what came before.
    var terminalSafe: String {
        var safe = ""
        safe.unicodeScalars.reserveCapacity(unicodeScalars.count)
        for scalar in unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x09: safe.unicodeScalars.append(scalar)
            case 0x00..<0x20, 0x7F..<0xA0: safe += "\\u{\(String(scalar.value, radix: 16))}"
            default: safe.unicodeScalars.append(scalar)
            }
        }
        return safe
    }
}
