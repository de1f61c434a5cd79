import Hummingbird
import MockAppleID

/// `GET|POST /auth/authorize` and the consent form's `POST /auth/authorize/consent` (docs/apple-reference.md §1).
extension AppleRoutes {
    func registerAuthorize(on router: AppleRouteGroup) {
        router.get("/auth/authorize") { request, _ in
            try authorize(request, try request.queryForm())
        }
        router.post("/auth/authorize") { request, _ in
            // Query parameters followed by the form body, so a parameter given in both counts as duplicated.
            let form = FormParameters(try request.queryForm().pairs + (try await request.urlEncodedForm(maxSize: configuration.maxBodySize)).pairs)
            return try authorize(request, form)
        }
        router.post("/auth/authorize/consent") { request, _ in
            let form = try await request.urlEncodedForm(maxSize: configuration.maxBodySize)
            provider.noteRequest(clientID: form.first("client_id"))
            let decision = try ConsentForm.decision(from: form)
            return deliver(try provider.completeAuthorization(form, decision: decision, origin: request.origin))
        }
    }

    private func authorize(_ request: Request, _ parameters: FormParameters) throws(AppleError) -> Response {
        switch try provider.authorize(parameters, origin: request.origin) {
        case let .consentRequired(prompt): return AppleResponse.html(ConsentPage.render(prompt))
        case let .delivered(delivery): return deliver(delivery)
        }
    }

    private func deliver(_ delivery: AuthorizationDelivery) -> Response {
        if let location = delivery.redirectLocation { return AppleResponse.redirect(to: location) }
        if delivery.mode == .webMessage { return AppleResponse.html(WebMessagePage.render(delivery)) }
        return AppleResponse.html(FormPostPage.render(delivery))
    }
}
