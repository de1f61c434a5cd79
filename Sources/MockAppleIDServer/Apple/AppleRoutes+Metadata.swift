import Hummingbird
import MockAppleID

/// `GET /auth/keys` (apple-api.md §4) and `GET /.well-known/openid-configuration` (§10.1).
extension AppleRoutes {
    func registerMetadata(on router: Router<BasicRequestContext>) {
        router.get("/auth/keys") { request, _ in
            try await applyTransportFault(.keys, endpoint: .keys, request, clientID: nil)
            provider.recordRequest(.keys, origin: request.origin, clientID: nil, status: 200, reason: "served the published keys")
            return Self.metadataResponse(ByteBuffer(string: provider.keySetJSON))
        }
        router.get("/.well-known/openid-configuration") { request, _ in
            let baseURL = baseURL(for: request)
            let document = discoveryCache.document(baseURL: baseURL) {
                DiscoveryDocument.json(issuer: provider.settings.issuer, baseURL: baseURL).serialized
            }
            provider.recordRequest(.discovery, origin: request.origin, clientID: nil, status: 200,
                                   reason: "served the discovery document for \(baseURL)")
            return Self.metadataResponse(ByteBuffer(string: document))
        }
    }

    private static func metadataResponse(_ body: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8", .server: "Apple"],
                 body: ResponseBody(byteBuffer: body))
    }
}
