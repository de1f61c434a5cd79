import MockAppleID

/// Apple's own error page for an authorization request it will not redirect (configuration errors).
enum ErrorPage {
    static func render(_ error: AppleError) -> String {
        PageTemplates.render(Model(code: error.code.rawValue, message: error.pageMessage, reason: error.reason), with: "error")
    }

    struct Model {
        let code: String
        let message: String
        let reason: String
    }

    static let template = """
        {{<page}}
        {{$title}}Sign in with Apple: {{code}}{{/title}}
        {{$body}}
        <h1>Sign in with Apple</h1>
        <div class="error" role="alert">
        <p><code>{{code}}</code></p>
        <p>{{message}}</p>
        </div>
        <p class="note">mock-appleid: {{reason}}</p>
        {{/body}}
        {{/page}}
        """
}
