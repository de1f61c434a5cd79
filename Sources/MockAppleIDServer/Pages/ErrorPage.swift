import MockAppleID

/// Apple's own error page for an authorization request it will not redirect (configuration errors).
enum ErrorPage {
    static func render(_ error: AppleError) -> String {
        HTML.page(title: "Sign in with Apple: \(error.code.rawValue)", body: """
            <h1>Sign in with Apple</h1>
            <div class="error" role="alert">
            <p><code>\(HTML.escape(error.code.rawValue))</code></p>
            <p>\(HTML.escape(error.pageMessage))</p>
            </div>
            <p class="note">mock-appleid: \(HTML.escape(error.reason))</p>
            """)
    }
}
