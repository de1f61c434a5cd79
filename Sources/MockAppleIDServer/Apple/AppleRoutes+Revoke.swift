import Hummingbird
import MockAppleID

/// `POST /auth/revoke` (apple-api.md §3): 200 with an empty body, even for unknown tokens.
extension AppleRoutes {
    func registerRevoke(on router: Router<BasicRequestContext>) {
        router.post("/auth/revoke") { request, context in
            let endpoint = "/auth/revoke"
            let form: FormParameters
            switch await request.urlEncodedForm(maxSize: configuration.maxBodySize) {
            case let .failure(error): return journalFailure(request, context, endpoint: endpoint, clientID: nil, error)
            case let .success(value): form = value
            }
            let clientID = form.pairs.first { $0.name == "client_id" }?.value
            switch await provider.revoke(form) {
            case let .failure(error):
                return journalFailure(request, context, endpoint: endpoint, clientID: clientID, error)
            case let .success(summary):
                journal(request, context, endpoint: endpoint, clientID: clientID, status: 200, reason: summary)
                return AppleResponse.emptyOK()
            }
        }
    }
}
