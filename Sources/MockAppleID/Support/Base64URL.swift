import Foundation

/// Base64url without padding (RFC 7515 §2), as every JOSE field uses it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes as base64url with no `=` padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ encode(buffer: UnsafeRawBufferPointer($0)) }) { return text }
        return Array(bytes).withUnsafeBytes { encode(buffer: $0) }
    }

    private static func encode(buffer bytes: UnsafeRawBufferPointer) -> String {
        let length = (bytes.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: length) { text in
            var out = 0
            var index = 0
            while index + 3 <= bytes.count {
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                text[out] = alphabet[Int(group >> 18 & 63)]
                text[out + 1] = alphabet[Int(group >> 12 & 63)]
                text[out + 2] = alphabet[Int(group >> 6 & 63)]
                text[out + 3] = alphabet[Int(group & 63)]
                out += 4
                index += 3
            }
            let rest = bytes.count - index
            if rest > 0 {
                let group = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                text[out] = alphabet[Int(group >> 18 & 63)]
                text[out + 1] = alphabet[Int(group >> 12 & 63)]
                out += 2
                if rest == 2 {
                    text[out] = alphabet[Int(group >> 6 & 63)]
                    out += 1
                }
            }
            return out
        }
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
