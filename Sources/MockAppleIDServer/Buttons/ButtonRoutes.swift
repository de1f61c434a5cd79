import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// Apple's button images (`GET /appleid/button`, `/appleid/button/left`, `/appleid/button/logo`), which
/// Apple serves from its CDN host: they answer at the root and under ``cdnPrefix``, so a relying party
/// swaps only the host. They touch no world: no hold, no journal entry. Rendered images are cached.
struct ButtonRoutes: Sendable {
    /// The CDN host's name as a path prefix (`https://appleid.cdn-apple.com/appleid/button` becomes
    /// `http://127.0.0.1:8080/appleid.cdn-apple.com/appleid/button`).
    static let cdnPrefix = "/appleid.cdn-apple.com"
    static let endpoints: [(path: String, endpoint: ButtonSpec.Endpoint)] = [
        ("/appleid/button", .centered), ("/appleid/button/left", .leftAligned), ("/appleid/button/logo", .logoOnly),
    ]

    var images = ButtonImages.shared

    /// Whether `path` is one of these routes' (requests the world need not see).
    static func serves(_ path: String) -> Bool {
        path.hasPrefix("/appleid/button") || path.hasPrefix(cdnPrefix + "/")
    }

    func register(on router: RecordingRouter) {
        for prefix in ["", Self.cdnPrefix] {
            for (path, endpoint) in Self.endpoints {
                router.get(RouterPath(prefix + path)) { request, _ in try respond(to: request, endpoint) }
            }
        }
    }

    private func respond(to request: Request, _ endpoint: ButtonSpec.Endpoint) throws -> Response {
        let query = request.uri.queryParameters.map { (name: String($0.key), value: String($0.value)) }
        guard let spec = ButtonSpec(endpoint, query: query) else { throw HTTPError(.notFound) }
        let image = try images.image(for: spec)
        var headers: HTTPFields = [.cacheControl: "public, max-age=86400", .eTag: image.etag, .accessControlAllowOrigin: "*"]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == image.etag }) == true {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "image/png"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: image.png))
    }
}

/// Rendered button images by what they show, rendered once each: a repeated request costs a lookup.
final class ButtonImages: Sendable {
    struct Image: Sendable {
        let png: ByteBuffer
        /// A strong validator: a digest of the image.
        let etag: String
    }

    private struct Cache {
        var images: [ButtonSpec: Image] = [:]
        var bytes = 0
    }
    private let cache = Mutex(Cache())
    /// The most images and bytes kept; past either, the cache starts again empty.
    static let mostImages = 256
    static let mostBytes = 8 << 20

    /// The one cache every listener and tenant shares (an image depends only on what it shows).
    static let shared = ButtonImages()

    init() {}

    func image(for spec: ButtonSpec) throws -> Image {
        if let image = cache.withLock({ $0.images[spec] }) { return image }
        let png: ByteBuffer
        do { png = try PNGEncoder.encode(rgba: ButtonRenderer.pixels(spec), width: spec.pixelWidth, height: spec.pixelHeight) } catch {
            throw HTTPError(.internalServerError, message: "the button image could not be encoded")
        }
        let digest = SHA256.hash(data: png.readableBytesView).prefix(12).map { String(format: "%02x", $0) }.joined()
        let image = Image(png: png, etag: "\"\(digest)\"")
        cache.withLock { cache in
            if cache.images.count >= Self.mostImages || cache.bytes + png.readableBytes > Self.mostBytes {
                cache = Cache()
            }
            cache.images[spec] = image
            cache.bytes += png.readableBytes
        }
        return image
    }
}
