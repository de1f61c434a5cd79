/// Name/value pairs of a query string or an `application/x-www-form-urlencoded` body, in order,
/// with repeats kept so that duplicated parameters can be refused as Apple does.
public struct FormParameters: Sendable, Equatable {
    public let pairs: [Pair]

    /// One `name=value` pair.
    public struct Pair: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Why a parameter could not be read.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The reasons, switched on inside the module; not public, so that one added breaks no caller.
        enum Base: Sendable, Equatable {
            case duplicated(String)
            case malformedEncoding
        }

        /// Which of them.
        let base: Base

        public static func duplicated(_ name: String) -> Self { Self(base: .duplicated(name)) }
        public static var malformedEncoding: Self { Self(base: .malformedEncoding) }

        public var description: String {
            switch base {
            case let .duplicated(name): return "parameter \(name) is given more than once"
            case .malformedEncoding: return "the form is not valid percent-encoding"
            }
        }
    }

    public init(_ pairs: [Pair]) { self.pairs = pairs }

    /// Decodes `a=1&b=two+words`; `+` is a space; bad percent-escapes throw.
    public init(urlEncoded text: some StringProtocol) throws(Problem) {
        var pairs: [Pair] = []
        let text = Substring(text)
        for field in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = field.firstIndex(of: UInt8(ascii: "=")) ?? field.endIndex
            let rawValue = equals == field.endIndex ? field[equals...] : field[field.index(after: equals)...]
            guard let name = Self.decode(field[..<equals]), let value = Self.decode(rawValue) else {
                throw .malformedEncoding
            }
            pairs.append(Pair(name, value))
        }
        self.pairs = pairs
    }

    /// The value of `name` if given exactly once, nil if absent; throws if repeated.
    public func single(_ name: String) throws(Problem) -> String? {
        var found: String?
        for pair in pairs where pair.name == name {
            guard found == nil else { throw .duplicated(name) }
            found = pair.value
        }
        return found
    }

    /// The first value given for `name`, if any.
    public func first(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// The first parameter among `names` that is given more than once.
    public func firstDuplicate(among names: [String]) -> String? {
        names.first { name in pairs.lazy.filter { $0.name == name }.count > 1 }
    }

    /// Like ``single(_:)`` but treats an empty value as absent.
    public func nonEmpty(_ name: String) throws(Problem) -> String? {
        guard let value = try single(name), !value.isEmpty else { return nil }
        return value
    }

    /// Percent-encodes pairs as `application/x-www-form-urlencoded`.
    public var urlEncoded: String {
        pairs.map { Self.encode($0.name) + "=" + Self.encode($0.value) }.joined(separator: "&")
    }

    /// `+` is a space and `%XY` the byte 0xXY; nil for an escape that is not two hex digits or for
    /// bytes that are not UTF-8. Works on the UTF-8 bytes, with no copy when there is nothing to decode.
    private static func decode(_ utf8: Substring.UTF8View) -> String? {
        let escape: (UInt8) -> Bool = { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
        guard utf8.withContiguousStorageIfAvailable({ $0.contains(where: escape) }) ?? utf8.contains(where: escape) else {
            return String(Substring(utf8))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(Hex.value(ofDigit:)), let low = iterator.next().flatMap(Hex.value(ofDigit:)) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    public static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                Hex.appendDigits(of: byte, uppercase: true, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
