import Foundation

extension URLComponents {
    /// The host as requests name it: an international name in its ASCII (`xn--`) form, IPv6 addresses in
    /// brackets, percent-encoding undone; nil when undoing it leaves anything but printable ASCII (a NUL,
    /// a space, a non-ASCII name spelt in escapes), which no request can name. Unlike `host`, it never turns
    /// `xn--` labels back into Unicode, which loads ICU's IDNA tables (about 2 MB of a process's memory,
    /// and half a millisecond, the first time); the checks made on hosts here read ASCII anyway.
    package var wireHost: String? {
        guard let host = encodedHost?.percentDecoded, host.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return nil
        }
        return host
    }
}
