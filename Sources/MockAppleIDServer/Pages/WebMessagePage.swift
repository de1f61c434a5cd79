import MockAppleID

/// The `web_message` delivery (Sign in with Apple JS in popup mode): a page in the popup that posts the
/// result to the page that opened it and closes. The browser hands the message over only when the
/// opener's origin is the redirect URI's. The message is ``AuthorizationDelivery/webMessage``.
enum WebMessagePage {
    static func render(_ delivery: AuthorizationDelivery) -> String {
        PageTemplates.render(["message": delivery.webMessage, "origin": delivery.webMessageOrigin] as [String: Any], with: "web-message")
    }

    static let template = """
        {{<page}}
        {{$title}}Signing in…{{/title}}
        {{$body}}
        <p id="result" data-message="{{message}}" data-origin="{{origin}}">Signing in… this window closes by itself.</p>
        <script>
        (function () {
          var result = document.getElementById("result");
          if (!window.opener) {
            result.textContent = "No page opened this window, so there is nobody to give the result to.";
            return;
          }
          if (result.dataset.origin === "null") {
            result.textContent = "The redirect URI has no origin to give the result to.";
            return;
          }
          window.opener.postMessage(JSON.parse(result.dataset.message), result.dataset.origin);
          window.close();
        })();
        </script>
        {{/body}}
        {{/page}}
        """
}
