import HTTPTypes
import Hummingbird
import MockAppleID

/// `GET /auth/keys` (docs/apple-reference.md §4) and `GET /.well-known/openid-configuration` (§10.1).
extension AppleRoutes {
    func registerMetadata(on router: AppleRouteGroup) {
        router.get("/auth/keys") { _, _ in
            try await applyTransportFault(.keys, clientID: nil)
            provider.noteServed(AppleIDProvider.keysServedReason)
            return Self.metadataResponse(ByteBuffer(string: keySetBodies.body()))
        }
        router.get("/.well-known/openid-configuration") { request, _ in
            let baseURL = baseURL(for: request)
            let document = discoveryCache.document(baseURL: baseURL) {
                DiscoveryDocument.json(issuer: provider.settings.issuer, baseURL: baseURL).serialized
            }
            provider.noteServed("served the discovery document for \(baseURL)")
            return Self.metadataResponse(ByteBuffer(string: document))
        }
        for path in ["/auth/keys", "/.well-known/openid-configuration"] {
            router.on(RouterPath(path), method: .options) { _, _ in Self.preflightResponse }
        }
    }

    /// Relying parties' browser code may fetch the keys and the discovery document from any origin.
    private static let corsHeaders: HTTPFields = [.accessControlAllowOrigin: "*"]

    /// The answer to a CORS preflight for the keys or the discovery document.
    private static let preflightResponse = Response(status: .noContent, headers: corsHeaders + [
        .accessControlAllowMethods: "GET, HEAD", .accessControlMaxAge: "86400", .server: "Apple",
    ])

    /// The fields of an answer with the keys or the discovery document, besides its length and date.
    static let metadataFields: HTTPFields = corsHeaders + [.contentType: "application/json;charset=UTF-8", .server: "Apple"]

    private static func metadataResponse(_ body: ByteBuffer) -> Response {
        Response(status: .ok, headers: metadataFields, body: ResponseBody(byteBuffer: body))
    }
}
