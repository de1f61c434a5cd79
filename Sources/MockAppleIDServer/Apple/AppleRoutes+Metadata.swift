import Hummingbird
import MockAppleID

/// `GET /auth/keys` (apple-api.md §4) and `GET /.well-known/openid-configuration` (§10.1).
extension AppleRoutes {
    func registerMetadata(on router: Router<BasicRequestContext>) {
        let keys = provider.keySetJSON
        router.get("/auth/keys") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8", .server: "Apple"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: keys)))
        }
        router.get("/.well-known/openid-configuration") { request, _ in
            let baseURL = baseURL(for: request)
            let document = discoveryCache.document(baseURL: baseURL) {
                DiscoveryDocument.json(issuer: provider.settings.issuer, baseURL: baseURL).serialized
            }
            return Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8", .server: "Apple"],
                             body: ResponseBody(byteBuffer: ByteBuffer(string: document)))
        }
    }
}
