import Hummingbird
import MockAppleID

/// `POST /auth/token` (apple-api.md §2) and `POST /auth/revoke` (§3): form bodies in, Apple's JSON
/// or empty 200 out.
extension AppleRoutes {
    func registerToken(on router: Router<BasicRequestContext>) {
        postForm("/auth/token", on: router) { form in
            await provider.token(form).map { (AppleResponse.json($0.body), $0.summary) }
        }
    }

    /// 200 with an empty body, even for unknown tokens.
    func registerRevoke(on router: Router<BasicRequestContext>) {
        postForm("/auth/revoke", on: router) { form in
            await provider.revoke(form).map { (AppleResponse.emptyOK(), $0) }
        }
    }

    /// A POST endpoint that reads an `application/x-www-form-urlencoded` body, asks `answer`, and
    /// journals the outcome; every failure is Apple's 400 error body.
    private func postForm(
        _ path: String, on router: Router<BasicRequestContext>,
        answer: @escaping @Sendable (FormParameters) async -> Result<(Response, summary: String), AppleError>
    ) {
        router.post(RouterPath(path)) { request, context in
            let form: FormParameters
            switch await request.urlEncodedForm(maxSize: configuration.maxBodySize) {
            case let .failure(error): return journalFailure(request, context, endpoint: path, clientID: nil, error)
            case let .success(value): form = value
            }
            let clientID = form.pairs.first { $0.name == "client_id" }?.value
            switch await answer(form) {
            case let .failure(error):
                return journalFailure(request, context, endpoint: path, clientID: clientID, error)
            case let .success((response, summary)):
                journal(request, context, endpoint: path, clientID: clientID, status: 200, reason: summary)
                return response
            }
        }
    }
}
