import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// The audit's browser: it sends requests to the relying party with a ``BrowserCookieJar`` and follows
/// redirects as a browser would, but only on the relying party's host; it stops at the mock server's
/// authorize endpoint and never goes anywhere else.
final class AuditBrowser: Sendable {
    /// The most redirects one navigation follows.
    static let maxRedirects = 20
    /// The most of a page's body kept.
    static let bodyLimit = 1024 * 1024

    /// One request and its answer.
    struct Hop: Sendable {
        let method: String
        let url: URL
        let status: Int
        /// The cookies a SameSite rule withheld from this request.
        let withheld: [BrowserCookieJar.Cookie]
    }

    /// Where a navigation ended.
    enum End: Sendable {
        /// A page that is not a redirect: its status and (bounded) body.
        case page(status: Int, body: String)
        /// A redirect to the mock server's authorize endpoint (not followed).
        case authorize(URL)
        /// A redirect to a host the audit does not visit (not followed).
        case offsite(URL)
        case tooManyRedirects
        /// No answer within the time allowed.
        case timedOut
        /// The connection failed.
        case failed(String)
    }

    /// What a navigation did, hop by hop.
    struct Navigation: Sendable {
        var hops: [Hop] = []
        var end: End = .failed("no request sent")
        /// The URL of the page it ended on, when that is not the last hop's (a real browser's page whose script fetched).
        var pageURL: URL?

        /// Every cookie withheld on the way.
        var withheld: [BrowserCookieJar.Cookie] { hops.flatMap(\.withheld) }
        /// The final page's status; nil when it did not end on a page.
        var finalStatus: Int? { if case let .page(status, _) = end { return status } else { return nil } }
        var finalBody: String { if case let .page(_, body) = end { return body } else { return "" } }
        /// The final page's path; nil when it did not end on a page.
        var finalPath: String? {
            guard case .page = end, let url = pageURL ?? hops.last?.url else { return nil }
            return url.path.isEmpty ? "/" : url.path
        }

        /// The hops, one line each (`POST /callback → 302 /`).
        var summary: String {
            var lines = hops.map { hop in "\(hop.method) \(hop.url.path.isEmpty ? "/" : hop.url.path) → \(hop.status)" }
            switch end {
            case .page: break
            case let .authorize(url): lines.append("→ Apple's authorize endpoint (\(url.host ?? ""))")
            case let .offsite(url): lines.append("→ \(url.absoluteString) (another host, not followed)")
            case .tooManyRedirects: lines.append("→ more than \(Self.redirectLimitText) redirects")
            case .timedOut: lines.append("→ no answer in time")
            case let .failed(reason): lines.append("→ \(reason)")
            }
            // A page's script that took Apple's answer without a request of its own.
            return lines.isEmpty ? "no request (the page stayed as it was)" : lines.joined(separator: ", ")
        }

        private static let redirectLimitText = String(AuditBrowser.maxRedirects)
    }

    /// The body, up to ``bodyLimit``, if it has all come by `deadline` (the client's own deadline ends with the head).
    private static func collect(_ body: HTTPClientResponse.Body, before deadline: NIODeadline) async throws -> ByteBuffer {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: bodyLimit) }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, (deadline - .now()).nanoseconds)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else { throw HTTPClientError.deadlineExceeded }
            return buffer
        }
    }

    /// The hosts a navigation may visit, and the mock server's authorize endpoint.
    struct Scope: Sendable {
        /// The relying party's host name (any port on it).
        let rpHost: String
        /// `host:port` of the mock server.
        let serverAuthority: String
        /// The authorize endpoint's path on the mock server (`/t/NAME/auth/authorize` for a tenant).
        let authorizePath: String

        /// The scope of an audit of the relying party at `start` through the mock server at `server`.
        init(start: URL, server: URL) {
            rpHost = start.host?.lowercased() ?? ""
            serverAuthority = Self.authority(server)
            authorizePath = (server.path.hasSuffix("/") ? String(server.path.dropLast()) : server.path) + "/auth/authorize"
        }

        /// Apple's authorize endpoint on the mock server: its port and path, on its host (any host that reaches
        /// this machine when the server listens on every address).
        func isAuthorize(_ url: URL) -> Bool {
            guard url.path == authorizePath else { return false }
            if Self.authority(url) == serverAuthority { return true }
            let (host, port) = (serverAuthority.split(separator: ":").dropLast().joined(separator: ":"), serverAuthority.split(separator: ":").last)
            let wildcard = host == "0.0.0.0" || host == "::" || host == "[::]"
            return wildcard && Self.authority(url).split(separator: ":").last == port
        }

        func mayVisit(_ url: URL) -> Bool {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
            return url.host?.lowercased() == rpHost
        }

        static func authority(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? "http"
            return "\(url.host?.lowercased() ?? ""):\(url.port ?? (scheme == "https" ? 443 : 80))"
        }
    }

    private let client: HTTPClient
    let scope: Scope
    /// The checked address of each host the browser may reach, by its lower-cased name.
    private let pins: [String: String]

    /// A browser that reaches `scope`'s hosts at their `pins`, trusting the certificate authorities in
    /// `trustedCertificates` (PEM, `--ca`) and the local CA's certificate `localCA` (PEM) besides the system's.
    init(scope: Scope, pins: [String: String], trusting trustedCertificates: String? = nil, localCA: String? = nil) throws(AuditFailure) {
        self.scope = scope
        self.pins = pins
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        var roots: [NIOSSLCertificate] = []
        for (pem, what) in [(trustedCertificates, "--ca"), (localCA, "the local certificate authority's ca.pem")] {
            guard let pem else { continue }
            do { roots += try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)) } catch {
                throw AuditFailure("\(what) holds no PEM certificate the browser can trust: \(error)")
            }
        }
        if !roots.isEmpty {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates(roots)]
            configuration.tlsConfiguration = tls
        }
        // Each host is reached at the address that was checked (``AuditTargets/pin(_:resolve:)``).
        configuration.dnsOverride = pins
        // A read may wait as long as the longest case lets a request take (a slow token endpoint behind the RP).
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(65))
        configuration.decompression = .enabled(limit: .size(Self.bodyLimit))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async { try? await client.shutdown() }

    /// `url` with its host in lower case (hosts are case-insensitive; the client's pins are not).
    private static func lowercasingHost(_ url: URL) -> URL? {
        guard let host = url.host, host != host.lowercased() else { return url }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.host = host.lowercased()
        return components?.url
    }

    /// Sends `method` to `url` (with a `body`, a form unless `contentType` says otherwise) in `context`, then
    /// follows redirects on the relying party's host as cross-site or same-site GETs, like the request that
    /// started them. The whole navigation, redirects included, may take up to `timeout`.
    func navigate(_ method: String, _ url: URL, form body: String? = nil, contentType: String = "application/x-www-form-urlencoded",
                  context: BrowserCookieJar.Context, jar: inout BrowserCookieJar, timeout: TimeAmount = .seconds(15)) async -> Navigation {
        var navigation = Navigation()
        var method = method, url = url, body = body, context = context
        let deadline = NIODeadline.now() + timeout
        for _ in 0...Self.maxRedirects {
            // A stopped audit (its caller went away) sends nothing more.
            guard !Task.isCancelled else {
                navigation.end = .failed("the audit was stopped")
                return navigation
            }
            // Only the hosts that were checked are reached, each at its checked address (named in lower case, as pinned).
            guard let pinned = Self.lowercasingHost(url), pins[pinned.host ?? ""] != nil else {
                navigation.end = .failed("\(url.host ?? url.absoluteString) is not a host the audit checked")
                return navigation
            }
            url = pinned
            let selection = jar.select(for: url, context: context)
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = HTTPMethod(rawValue: method)
            request.headers.add(name: "User-Agent", value: "mock-appleid-audit")
            request.headers.add(name: "Accept", value: "text/html,application/json;q=0.9,*/*;q=0.8")
            if let cookie = selection.header { request.headers.add(name: "Cookie", value: cookie) }
            if let body {
                request.headers.add(name: "Content-Type", value: contentType)
                request.body = .bytes(ByteBuffer(string: body))
            }
            let response: HTTPClientResponse
            let text: String
            do {
                response = try await client.execute(request, deadline: deadline)
                text = String(buffer: try await Self.collect(response.body, before: deadline))
            } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
                navigation.end = .timedOut
                return navigation
            } catch is NIOTooManyBytesError {
                navigation.end = .failed("\(url.absoluteString) answered a body over \(Self.bodyLimit / 1024 / 1024) MB")
                return navigation
            } catch let error as NIOSSLError where "\(error)".contains("CERTIFICATE_VERIFY_FAILED") {
                navigation.end = .failed("\(url.absoluteString) could not be reached: its certificate is not one the audit trusts "
                                         + "(give its certificate authority with --ca, or give the relying party one from `mock-appleid tls issue`)")
                return navigation
            } catch {
                navigation.end = .failed("\(url.absoluteString) could not be reached: \(error)")
                return navigation
            }
            jar.store(setCookieHeaders: response.headers["Set-Cookie"], from: url)
            let status = Int(response.status.code)
            let location = response.headers.first(name: "Location")
            navigation.hops.append(Hop(method: method, url: url, status: status, withheld: selection.withheld))
            guard (300...399).contains(status), status != 304, let location, let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                navigation.end = .page(status: status, body: text)
                return navigation
            }
            if scope.isAuthorize(next) { navigation.end = .authorize(next); return navigation }
            guard scope.mayVisit(next) else { navigation.end = .offsite(next); return navigation }
            if status != 307 && status != 308 { method = "GET"; body = nil }
            if case .crossSite = context { context = .crossSite(method: method) }
            url = next
        }
        navigation.end = .tooManyRedirects
        return navigation
    }
}
