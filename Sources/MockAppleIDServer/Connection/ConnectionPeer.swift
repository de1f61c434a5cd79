import HTTPTypes
import NIOCore

/// Whether a request came from this machine, as the connection layer saw the peer when it
/// connected: every request head read from a socket gets ``field`` set (any value a client sent is
/// replaced), so the admin API's loopback rule cannot be fooled by a spoofed header or by a client
/// that closes its socket before its request is handled. A request without the field did not come
/// over a socket (in-process tests).
enum ConnectionPeer {
    static let field = HTTPField.Name("X-Mock-AppleID-Peer")!
    static let loopback = "loopback"
    static let remote = "remote"

    /// The field's value for a connection whose peer is (or is not) on this machine.
    static func value(peerIsLoopback: Bool) -> String { peerIsLoopback ? loopback : remote }
}

extension SocketAddress {
    /// Whether this is a loopback address (127.0.0.0/8, ::1, or IPv4-mapped 127.x) or a Unix socket.
    var isLoopback: Bool {
        switch self {
        case let .v4(address):
            return UInt32(bigEndian: address.address.sin_addr.s_addr) >> 24 == 127
        case let .v6(address):
            let bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
            let isIPv6Loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
            let isMappedIPv4Loopback = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
            return isIPv6Loopback || isMappedIPv4Loopback
        case .unixDomainSocket:
            return true
        }
    }
}
