import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import MockAppleID
import NIOCore

/// Who may use the admin API. Without a token only loopback clients may (as the connection layer
/// marks each request, ``ConnectionPeer``), and only under a loopback or configured host name, so a
/// DNS-rebinding page cannot reach it; with a token, any client that sends it as `Authorization: Bearer …`. Either way a request a browser marks as coming from another
/// site (`Sec-Fetch-Site`, or an `Origin` that is not the server's own) is refused, writes must be
/// `Content-Type: application/json` (which a cross-site form cannot send), and no CORS header is
/// ever sent, so a page the developer opens cannot drive the admin API.
struct AdminGuard: Sendable {
    /// The SHA-256 of the Bearer token required of every client (compared by hash, so the comparison
    /// takes as long whatever the token sent); nil admits loopback clients only.
    let tokenHash: Data?
    /// Host names besides loopback ones that a tokenless request may name in `Host` (the bound and public hosts).
    let hostNames: Set<String>

    static let writeMethods: Set<HTTPRequest.Method> = [.post, .put, .patch]
    private static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    private static let origin = HTTPField.Name("Origin")!

    init(token: String?, hostNames: Set<String>) {
        tokenHash = token.map { Data(SHA256.hash(data: Data($0.utf8))) }
        self.hostNames = hostNames
    }

    /// Refuses a request to the admin API (``covers(_:)``) that the rules above do not admit.
    func check(_ request: Request) throws(AdminError) {
        try admit(request)
        try refuseCrossSite(request)
    }

    /// Whether `path` is the admin API's (the server checks the guard before routing such a request, so
    /// nothing under the prefix answers a client it would refuse, not even with 404 or 405). Read as the router reads it: by
    /// its first component, empty ones skipped (`//__admin/health` is routed to the admin API too).
    static func covers(_ path: String) -> Bool {
        let components = path.drop { $0 == "/" }
        guard components.hasPrefix(adminComponent) else { return false }
        return components.dropFirst(adminComponent.count).first.map { $0 == "/" } ?? true
    }

    private static let adminComponent = AdminRoutes.prefix.dropFirst()

    private func admit(_ request: Request) throws(AdminError) {
        guard let tokenHash else {
            guard request.headers[ConnectionPeer.field] != ConnectionPeer.remote else {
                throw AdminError(status: .forbidden, code: "not_loopback",
                                 message: "the admin API answers loopback clients only; start the server with --admin-token to open it to others")
            }
            if let authority = request.head.authority {
                let host = Self.hostName(authority)
                guard ReturnURLPolicy.isLoopback(host) || hostNames.contains(host) else {
                    throw AdminError(status: .forbidden, code: "bad_host",
                                     message: "the admin API answers requests for localhost or the server's own host names only (Host: \(authority.prefix(256)))")
                }
            }
            return
        }
        guard let presented = bearerToken(request.headers[.authorization]),
              Data(SHA256.hash(data: Data(presented.utf8))) == tokenHash
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

    /// `Host` without its port, lowercased (`[::1]:8080` → `[::1]`).
    static func hostName(_ authority: String) -> String {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("["), let end = lowered.firstIndex(of: "]") { return String(lowered[...end]) }
        return String(lowered.split(separator: ":", maxSplits: 1).first ?? "")
    }
}
