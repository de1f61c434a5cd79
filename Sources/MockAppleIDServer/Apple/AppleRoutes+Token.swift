import Foundation
import Hummingbird
import MockAppleID

/// `POST /auth/token` (docs/apple-reference.md §2), `POST /auth/revoke` (§3) and `POST /auth/usermigrationinfo` (§8): form bodies in, Apple's JSON
/// or empty 200 out; Apple's errors are answered by ``AppleEndpointMiddleware``.
extension AppleRoutes {
    func registerToken(on router: AppleRouteGroup) {
        router.post("/auth/token") { request, _ in
            let form = try await request.urlEncodedForm(maxSize: configuration.maxBodySize, wrongType: provider.settings.errors.nonFormBody)
            try await applyTransportFault(.token, clientID: form.first("client_id"))
            return AppleResponse.json(try provider.token(form, origin: request.origin))
        }
    }

    /// 200 with an empty body, even for unknown tokens.
    func registerRevoke(on router: AppleRouteGroup) {
        router.post("/auth/revoke") { request, _ in
            let form = try await request.urlEncodedForm(maxSize: configuration.maxBodySize, wrongType: provider.settings.errors.nonFormBody)
            try provider.revoke(form, origin: request.origin)
            return AppleResponse.emptyOK()
        }
    }

    /// `POST /auth/usermigrationinfo` (§8): the form and the `Authorization: Bearer` team access token.
    func registerUserMigration(on router: AppleRouteGroup) {
        router.post("/auth/usermigrationinfo") { request, _ in
            let form = try await request.urlEncodedForm(maxSize: configuration.maxBodySize)
            return AppleResponse.json(try provider.userMigrationInfo(form, bearer: bearerToken(request.headers[.authorization]), origin: request.origin))
        }
    }
}
