/// Matching text byte for byte. Swift's `String` equality, and a `String`-keyed dictionary's lookup, take
/// canonically equivalent text as the same (U+212A KELVIN SIGN equals `K`); Apple compares client ids, key
/// ids, codes, tokens and redirect URIs by their bytes, so those are matched with these.
extension String {
    /// Whether `other` is the same sequence of UTF-8 bytes.
    package func sameBytes(as other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}

extension Optional<String> {
    /// Whether both are nil, or both hold the same UTF-8 bytes.
    package func sameBytes(as other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): return true
        case let (mine?, theirs?): return mine.sameBytes(as: theirs)
        default: return false
        }
    }
}

extension Dictionary where Key == String {
    /// The value held under a key with exactly `key`'s bytes (a plain lookup also finds a canonically
    /// equivalent key).
    package subscript(exactly key: String) -> Value? {
        guard let index = index(forKey: key), keys[index].sameBytes(as: key) else { return nil }
        return values[index]
    }
}
