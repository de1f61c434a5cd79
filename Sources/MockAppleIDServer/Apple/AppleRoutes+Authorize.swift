import Hummingbird
import MockAppleID

/// `GET|POST /auth/authorize` and the consent form's `POST /auth/authorize/consent` (docs/apple-reference.md §1).
extension AppleRoutes {
    func registerAuthorize(on router: RecordingRouter) {
        router.get("/auth/authorize") { request, _ in
            try await page { () throws(AppleError) in
                try await authorize(request, reading(.authorize, request) { () throws(AppleError) in try request.queryForm() })
            }
        }
        router.post("/auth/authorize") { request, _ in
            try await page { () throws(AppleError) in
                let form = try await reading(.authorize, request) { () throws(AppleError) in
                    // Query parameters followed by the form body, so a parameter given in both counts as duplicated.
                    FormParameters(try request.queryForm().pairs + (try await request.urlEncodedForm(maxSize: configuration.maxBodySize)).pairs)
                }
                return try await authorize(request, form)
            }
        }
        router.post("/auth/authorize/consent") { request, _ in
            try await page { () throws(AppleError) in
                let form = try await reading(.authorize, request) { () throws(AppleError) in
                    try await request.urlEncodedForm(maxSize: configuration.maxBodySize)
                }
                let decision = try await reading(.authorize, request, clientID: form.first("client_id")) { () throws(AppleError) in
                    try ConsentForm.decision(from: form)
                }
                return deliver(try provider.completeAuthorization(form, decision: decision, origin: request.origin))
            }
        }
    }

    private func authorize(_ request: Request, _ parameters: FormParameters) async throws(AppleError) -> Response {
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

    /// Configuration errors stay on the server's own page, never redirected.
    private func page(_ body: () async throws(AppleError) -> Response) async throws(AuthorizePageError) -> Response {
        do { return try await body() } catch { throw AuthorizePageError(error: error) }
    }
}
