import Hummingbird
import MockAppleID

/// `POST /auth/token` (apple-api.md §2).
extension AppleRoutes {
    func registerToken(on router: Router<BasicRequestContext>) {
        router.post("/auth/token") { request, context in
            let endpoint = "/auth/token"
            let form: FormParameters
            switch await request.urlEncodedForm(maxSize: configuration.maxBodySize) {
            case let .failure(error): return journalFailure(request, context, endpoint: endpoint, clientID: nil, error)
            case let .success(value): form = value
            }
            let clientID = form.pairs.first { $0.name == "client_id" }?.value
            switch await provider.token(form) {
            case let .failure(error):
                return journalFailure(request, context, endpoint: endpoint, clientID: clientID, error)
            case let .success(success):
                journal(request, context, endpoint: endpoint, clientID: clientID, status: 200, reason: success.summary)
                return AppleResponse.json(success.body)
            }
        }
    }
}
