import MockAppleID

/// The `form_post` delivery: a page that POSTs the result to the redirect URI at once, a genuine
/// top-level cross-site form submission, as Apple's is (SameSite=Lax cookies are not sent on it).
enum FormPostPage {
    static func render(_ delivery: AuthorizationDelivery) -> String {
        PageTemplates.render(Model(redirectURI: delivery.redirectURI,
                                   fields: delivery.fields.pairs.map { HiddenField(name: $0.name, value: $0.value) }),
                             with: "form-post")
    }

    struct Model {
        let redirectURI: String
        let fields: [HiddenField]
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
