import MockAppleID

/// The `form_post` delivery: a page that POSTs the result to the redirect URI at once, a genuine
/// top-level cross-site form submission, as Apple's is (SameSite=Lax cookies are not sent on it).
enum FormPostPage {
    static func render(_ delivery: AuthorizationDelivery) -> String {
        let fields = HTML.hiddenInputs(delivery.fields.pairs.map { ($0.name, $0.value) })
        return HTML.page(title: "Signing in…", body: """
            <form method="post" action="\(HTML.escape(delivery.redirectURI))">
            \(fields)
            <noscript><button type="submit">Continue</button></noscript>
            </form>
            <script>document.forms[0].submit();</script>
            """)
    }
}
