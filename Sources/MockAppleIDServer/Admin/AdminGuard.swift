import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Who may use the admin API. Without a token only loopback clients may; with one, any client that
/// sends it as `Authorization: Bearer …`. Either way a request a browser marks as coming from another
/// site (`Sec-Fetch-Site`, or an `Origin` that is not the server's own) is refused, writes must be
/// `Content-Type: application/json` (which a cross-site form cannot send), and no CORS header is
/// ever sent, so a page the developer opens cannot drive the admin API.
struct AdminGuard: RouterMiddleware {
    typealias Context = ServerRequestContext

    /// The Bearer token required of every client; nil admits loopback clients only.
    let token: String?

    private static let writeMethods: Set<HTTPRequest.Method> = [.post, .put, .patch]
    private static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    private static let origin = HTTPField.Name("Origin")!

    func handle(_ request: Request, context: ServerRequestContext,
                next: (Request, ServerRequestContext) async throws -> Response) async throws -> Response {
        try admit(request, from: context.remoteAddress)
        try refuseCrossSite(request)
        if Self.writeMethods.contains(request.method) { try request.requireJSONContentType() }
        return try await next(request, context)
    }

    private func admit(_ request: Request, from address: SocketAddress?) throws(AdminError) {
        guard let token else {
            guard address.map(\.isLoopback) ?? true else {
                throw AdminError(status: .forbidden, code: "not_loopback",
                                 message: "the admin API answers loopback clients only; start the server with --admin-token to open it to others")
            }
            return
        }
        guard let presented = Self.bearer(request.headers[.authorization]),
              Data(SHA256.hash(data: Data(presented.utf8))) == Data(SHA256.hash(data: Data(token.utf8)))
        else {
            throw AdminError(status: .unauthorized, code: "unauthorized", message: "the admin API needs Authorization: Bearer <admin token>",
                             headers: [.wwwAuthenticate: "Bearer realm=\"mock-appleid admin\""])
        }
    }

    private func refuseCrossSite(_ request: Request) throws(AdminError) {
        if let site = request.headers[Self.secFetchSite], site != "same-origin", site != "none" {
            throw AdminError(status: .forbidden, code: "cross_site", message: "the admin API refuses requests from other sites (Sec-Fetch-Site: \(site.prefix(64)))")
        }
        if let origin = request.headers[Self.origin] {
            let host = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
            guard host != nil, host == request.head.authority else {
                throw AdminError(status: .forbidden, code: "cross_site", message: "the admin API refuses requests from other origins (Origin: \(origin.prefix(256)))")
            }
        }
    }

    /// The token of `Bearer <token>`.
    private static func bearer(_ value: String?) -> String? {
        guard let value, value.count > 7, value.prefix(7).lowercased() == "bearer " else { return nil }
        return String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
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
