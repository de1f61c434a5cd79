import Foundation

/// Base64url without padding (RFC 7515 §2), as every JOSE field uses it.
public enum Base64URL {
    /// Encodes bytes as base64url with no `=` padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        var text = Array(Data(bytes).base64EncodedData())
        while text.last == UInt8(ascii: "=") { text.removeLast() }
        for index in text.indices {
            if text[index] == UInt8(ascii: "+") { text[index] = UInt8(ascii: "-") } else if text[index] == UInt8(ascii: "/") { text[index] = UInt8(ascii: "_") }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes base64url text; returns nil for anything that is not strict base64url
    /// (standard-alphabet `+`/`/` or padding are refused, as JOSE forbids them).
    public static func decode(_ text: some StringProtocol) -> Data? {
        guard text.utf8.allSatisfy(isAlphabet) else { return nil }
        var base64 = text.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "-"): return UInt8(ascii: "+")
            case UInt8(ascii: "_"): return UInt8(ascii: "/")
            default: return byte
            }
        }
        switch base64.count % 4 {
        case 0: break
        case 2: base64 += [UInt8(ascii: "="), UInt8(ascii: "=")]
        case 3: base64.append(UInt8(ascii: "="))
        default: return nil
        }
        return Data(base64Encoded: Data(base64))
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}
