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

/// What the command line prints, with its control characters written out (``Swift/String/terminalSafe``): much
/// of it comes from a server (answers, relay mail's subjects, a relying party's pages in an audit's report), and
/// this one function stands in for the standard library's `print` of text throughout the command line.
func print(_ text: String, terminator: String = "\n") {
    Swift.print(text.terminalSafe, terminator: terminator)
}
