import Hummingbird
import MockAppleID

/// `GET /auth/keys` (apple-api.md §4) and `GET /.well-known/openid-configuration` (§10.1).
extension AppleRoutes {
    func registerMetadata(on router: Router<BasicRequestContext>) {
        let keys = ByteBuffer(string: provider.keySetJSON)
        let keysSummary = "served \(provider.keySet.keys.count) keys: \(provider.keySet.keys.map(\.kid).joined(separator: ", "))"
        router.get("/auth/keys") { request, context in
            journal(request, context, endpoint: "/auth/keys", clientID: nil, status: 200, reason: keysSummary)
            return Self.metadataResponse(keys)
        }
        router.get("/.well-known/openid-configuration") { request, context in
            let baseURL = baseURL(for: request)
            let document = discoveryCache.document(baseURL: baseURL) {
                DiscoveryDocument.json(issuer: provider.settings.issuer, baseURL: baseURL).serialized
            }
            journal(request, context, endpoint: "/.well-known/openid-configuration", clientID: nil, status: 200,
                    reason: "served the discovery document for \(baseURL)")
            return Self.metadataResponse(ByteBuffer(string: document))
        }
    }

    private static func metadataResponse(_ body: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8", .server: "Apple"],
                 body: ResponseBody(byteBuffer: body))
    }
}
