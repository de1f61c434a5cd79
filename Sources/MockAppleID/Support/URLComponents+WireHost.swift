import Foundation

extension URLComponents {
    /// The host as requests name it: percent-encoding undone, an international name in its ASCII
    /// (`xn--`) form, IPv6 addresses in brackets. Unlike `host`, it never turns `xn--` labels back into
    /// Unicode, which loads ICU's IDNA tables (about 2 MB of a process's memory, and half a millisecond,
    /// the first time); the checks made on hosts here read ASCII anyway.
    package var wireHost: String? { encodedHost?.removingPercentEncoding }
}
