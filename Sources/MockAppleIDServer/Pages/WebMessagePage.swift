import Foundation
import MockAppleID

/// The `web_message` delivery (Sign in with Apple JS in popup mode): a page in the popup that posts the
/// result to the page that opened it and closes. The browser hands the message over only when the
/// opener's origin is the redirect URI's. The message is this product's (Apple's format is undocumented):
/// `{"source":"mock-appleid","authorization":{"code","id_token","state"},"user"?}` on success, as the
/// SDK's promise resolves, or `{"source":"mock-appleid","error","state"?}`.
enum WebMessagePage {
    static func render(_ delivery: AuthorizationDelivery) -> String {
        PageTemplates.render(["message": message(delivery), "origin": origin(of: delivery.redirectURI)] as [String: Any],
                             with: "web-message")
    }

    /// The message as JSON text.
    static func message(_ delivery: AuthorizationDelivery) -> String {
        var message: [String: Any] = ["source": "mock-appleid"]
        if let error = delivery["error"] {
            message["error"] = error
            if let state = delivery["state"] { message["state"] = state }
        } else {
            var authorization: [String: String] = [:]
            for name in ["code", "id_token", "state"] { authorization[name] = delivery[name] }
            message["authorization"] = authorization
            // `user` arrives as JSON text in a form post; the SDK resolves with it as an object.
            if let user = delivery["user"], let object = try? JSONSerialization.jsonObject(with: Data(user.utf8)) {
                message["user"] = object
            }
        }
        guard let data = try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]) else {
            return #"{"source":"mock-appleid","error":"invalid_request"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `scheme://host[:port]` of a URL: the only origin the message is handed to.
    static func origin(of url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.wireHost else {
            return "null"
        }
        let bracketed = host.contains(":" as Character) && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)\(components.port.map { ":\($0)" } ?? "")"
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
