import Hummingbird
import NIOCore
import Synchronization

/// Rendered button images by what they show, rendered once each: a repeated request costs a lookup.
final class ButtonImages: Sendable {
    struct Image: Sendable {
        let png: ByteBuffer
        /// A strong validator: a digest of the image.
        let etag: String
    }

    private struct Cache {
        var images: [ButtonSpec: Image] = [:]
        /// The images' keys, oldest first: the first to go when the cache is full.
        var order: [ButtonSpec] = []
        var bytes = 0
    }
    private let cache = Mutex(Cache())
    /// The most images and bytes kept; past either, the oldest are dropped.
    static let mostImages = 256
    static let mostBytes = 8 << 20

    /// The one cache every listener and tenant shares (an image depends only on what it shows).
    static let shared = ButtonImages()

    init() {}

    /// The image for `spec`: from the cache, or rendered (up to about 20 ms at the largest size) off the event
    /// loop, at most one per core at a time.
    func image(for spec: ButtonSpec) async throws -> Image {
        if let image = cache.withLock({ $0.images[spec] }) { return image }
        return try await offEventLoop { try self.render(spec) }
    }

    /// Renders the image for `spec` and keeps it.
    private func render(_ spec: ButtonSpec) throws -> Image {
        if let image = cache.withLock({ $0.images[spec] }) { return image }  // rendered while this one waited
        let png: ByteBuffer
        do { png = try PNGEncoder.encode(rgba: ButtonRenderer.pixels(spec), width: spec.pixelWidth, height: spec.pixelHeight) } catch {
            throw HTTPError(.internalServerError, message: "the button image could not be encoded")
        }
        let image = Image(png: png, etag: CDNRoutes.etag(of: png))
        cache.withLock { cache in
            guard cache.images[spec] == nil else { return }
            while !cache.order.isEmpty, cache.images.count >= Self.mostImages || cache.bytes + png.readableBytes > Self.mostBytes {
                let oldest = cache.order.removeFirst()
                cache.bytes -= cache.images.removeValue(forKey: oldest)?.png.readableBytes ?? 0
            }
            cache.images[spec] = image
            cache.order.append(spec)
            cache.bytes += png.readableBytes
        }
        return image
    }
}
