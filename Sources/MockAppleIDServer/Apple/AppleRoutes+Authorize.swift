import Hummingbird
import MockAppleID

/// `GET|POST /auth/authorize` and the consent form's `POST /auth/authorize/consent` (apple-api.md §1).
extension AppleRoutes {
    static let authorizeEndpoint = "/auth/authorize"

    func registerAuthorize(on router: Router<BasicRequestContext>) {
        router.get("/auth/authorize") { request, context in
            await authorize(request, context, form: request.queryForm())
        }
        router.post("/auth/authorize") { request, context in
            await authorize(request, context, form: await postedParameters(request))
        }
        router.post("/auth/authorize/consent") { request, context in
            await consent(request, context)
        }
    }

    /// Query parameters followed by the form body, so a parameter given in both counts as duplicated.
    private func postedParameters(_ request: Request) async -> Result<FormParameters, AppleError> {
        switch request.queryForm() {
        case let .failure(error): return .failure(error)
        case let .success(query):
            return await request.urlEncodedForm(maxSize: configuration.maxBodySize).map { FormParameters(query.pairs + $0.pairs) }
        }
    }

    private func authorize(_ request: Request, _ context: BasicRequestContext, form: Result<FormParameters, AppleError>) async -> Response {
        let parameters: FormParameters
        switch form {
        case let .failure(error):
            return rejected(request, context, clientID: nil, AuthorizeError(.invalidRequest, "Invalid request.", reason: error.reason))
        case let .success(value): parameters = value
        }
        let clientID = parameters.pairs.first { $0.name == "client_id" }?.value
        switch await provider.authorize(parameters) {
        case let .rejected(error):
            return rejected(request, context, clientID: clientID, error)
        case let .consentRequired(prompt):
            journal(request, context, endpoint: Self.authorizeEndpoint, clientID: clientID, status: 200, reason: "consent page shown")
            return AppleResponse.html(ConsentPage.render(prompt))
        case let .delivered(delivery, summary):
            return deliver(request, context, delivery, clientID: clientID, summary: summary)
        }
    }

    private func consent(_ request: Request, _ context: BasicRequestContext) async -> Response {
        let form: FormParameters
        switch await request.urlEncodedForm(maxSize: configuration.maxBodySize) {
        case let .failure(error):
            return rejected(request, context, clientID: nil, AuthorizeError(.invalidRequest, "Invalid request.", reason: error.reason))
        case let .success(value): form = value
        }
        let clientID = form.pairs.first { $0.name == "client_id" }?.value
        let outcome: Result<(AuthorizationDelivery, summary: String), AuthorizeError>
        switch ConsentForm.decision(from: form) {
        case let .failure(error): outcome = .failure(error)
        case let .success(decision): outcome = await provider.completeAuthorization(form, decision: decision)
        }
        switch outcome {
        case let .failure(error):
            return rejected(request, context, clientID: clientID, error)
        case let .success((delivery, summary)):
            return deliver(request, context, delivery, clientID: clientID, summary: summary)
        }
    }

    private func deliver(_ request: Request, _ context: BasicRequestContext, _ delivery: AuthorizationDelivery,
                         clientID: String?, summary: String) -> Response {
        journal(request, context, endpoint: Self.authorizeEndpoint, clientID: clientID, status: 200,
                reason: "\(summary); delivered by \(delivery.mode.rawValue) to \(delivery.redirectURI)")
        if let location = delivery.redirectLocation { return AppleResponse.redirect(to: location) }
        return AppleResponse.html(FormPostPage.render(delivery))
    }

    /// Configuration errors stay on the server's page (HTTP 400; JSON if asked for), never redirected.
    private func rejected(_ request: Request, _ context: BasicRequestContext, clientID: String?, _ error: AuthorizeError) -> Response {
        journal(request, context, endpoint: Self.authorizeEndpoint, clientID: clientID, status: 400,
                error: error.code.rawValue, reason: error.reason)
        if request.prefersJSON {
            let body = JSONValue.object([("error", .string(error.code.rawValue)), ("error_description", .string(error.message))])
            return AppleResponse.json(body, status: .badRequest)
        }
        return AppleResponse.html(ErrorPage.render(error), status: .badRequest)
    }
}
