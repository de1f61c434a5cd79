/// Hexadecimal digits of bytes, two per byte: lowercase text for identifiers, either case for
/// percent-escapes.
public enum Hex {
    private static let lowercase = Array("0123456789abcdef".utf8)
    private static let uppercase = Array("0123456789ABCDEF".utf8)

    /// Lowercase hexadecimal text of `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var index = 0
            for byte in bytes {
                text[index] = lowercase[Int(byte >> 4)]
                text[index + 1] = lowercase[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    /// Appends the two digits of `byte` to `text`.
    static func appendDigits(of byte: UInt8, uppercase: Bool = false, to text: inout [UInt8]) {
        let digits = uppercase ? Self.uppercase : lowercase
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }

    /// The value of one hexadecimal digit in either case; nil for any other byte.
    static func value(ofDigit digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
