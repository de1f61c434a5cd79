import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// What Apple serves from its CDN host, `appleid.cdn-apple.com`: the button images (`GET /appleid/button`,
/// `/appleid/button/left`, `/appleid/button/logo`) and Sign in with Apple JS
/// (`/appleauth/static/jsapi/appleid/1/<locale>/appleid.auth.js`). They answer at the root and under
/// ``cdnPrefix``, so a relying party swaps only the host. They touch no world: no hold, no journal entry.
struct CDNRoutes: Sendable {
    /// The CDN host's name as a path prefix (`https://appleid.cdn-apple.com/appleid/button` becomes
    /// `http://127.0.0.1:8080/appleid.cdn-apple.com/appleid/button`).
    static let cdnPrefix = "/appleid.cdn-apple.com"
    static let buttons: [(path: String, endpoint: ButtonSpec.Endpoint)] = [
        ("/appleid/button", .centered), ("/appleid/button/left", .leftAligned), ("/appleid/button/logo", .logoOnly),
    ]
    static let scriptPath = "/appleauth/static/jsapi/appleid/1/:locale/appleid.auth.js"

    var images = ButtonImages.shared

    /// Whether `path` is one of these routes' (requests the world need not see).
    static func serves(_ path: String) -> Bool {
        let path = path.hasPrefix(cdnPrefix + "/") ? path.dropFirst(cdnPrefix.count) : Substring(path)
        if buttons.contains(where: { $0.path == path }) { return true }
        guard path.hasPrefix("/appleauth/") else { return false }  // every other request stops here
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 8 && parts[0...5] == ["", "appleauth", "static", "jsapi", "appleid", "1"] && parts[7] == "appleid.auth.js"
    }

    func register(on router: RecordingRouter) {
        for prefix in ["", Self.cdnPrefix] {
            for (path, endpoint) in Self.buttons {
                router.get(RouterPath(prefix + path)) { request, _ in try await button(request, endpoint) }
            }
            router.get(RouterPath(prefix + Self.scriptPath)) { request, context in
                guard let locale = context.parameters.get("locale"), ButtonMasters.locales.contains(locale) else {
                    throw HTTPError(.notFound)
                }
                return Self.cached(Self.script, etag: Self.scriptTag, contentType: "text/javascript;charset=utf-8", request)
            }
        }
    }

    private func button(_ request: Request, _ endpoint: ButtonSpec.Endpoint) async throws -> Response {
        // Names and values decoded, repeats kept (ButtonSpec refuses them), empty pieces (`a&&b`) skipped.
        guard let form = try? request.queryForm(),
              let spec = ButtonSpec(endpoint, query: form.pairs.map { ($0.name, $0.value) }) else { throw HTTPError(.notFound) }
        let image = try await images.image(for: spec)
        return Self.cached(image.png, etag: image.etag, contentType: "image/png", request)
    }

    private static let script = ByteBuffer(string: SignInScript.source)
    private static let scriptTag = etag(of: script)

    /// A strong validator: a digest of the body.
    static func etag(of body: ByteBuffer) -> String {
        "\"" + SHA256.hash(data: body.readableBytesView).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// The body with CDN-style caching headers, or 304 when the request already holds it (`If-None-Match`
    /// compares weakly: `W/"x"` matches `"x"`; `*` matches anything).
    private static func cached(_ body: ByteBuffer, etag: String, contentType: String, _ request: Request) -> Response {
        var headers: HTTPFields = [.cacheControl: "public, max-age=86400", .eTag: etag, .accessControlAllowOrigin: "*"]
        let held = request.headers[.ifNoneMatch]?.split(separator: ",").map { tag -> String in
            let trimmed = tag.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
        } ?? []
        if held.contains(etag) || held.contains("*") { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
