import Foundation

/// The `web_message` delivery (Sign in with Apple JS in popup mode): the message the popup posts to the page that
/// opened it, and the only origin it is handed to. The message is this product's (Apple's format is undocumented):
/// `{"source":"mock-appleid","authorization":{"code","id_token","state"},"user"?}` on success, as the SDK's promise
/// resolves, or `{"source":"mock-appleid","error","state"?}`.
extension AuthorizationDelivery {
    /// The message as JSON text, keys sorted.
    public var webMessage: String {
        var message: [String: Any] = ["source": "mock-appleid"]
        if let error = self["error"] {
            message["error"] = error
            if let state = self["state"] { message["state"] = state }
        } else {
            var authorization: [String: String] = [:]
            for name in ["code", "id_token", "state"] { authorization[name] = self[name] }
            message["authorization"] = authorization
            // `user` arrives as JSON text in a form post; the SDK resolves with it as an object.
            if let user = self["user"], let object = try? JSONSerialization.jsonObject(with: Data(user.utf8)) {
                message["user"] = object
            }
        }
        guard let data = try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]) else {
            return #"{"source":"mock-appleid","error":"invalid_request"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `scheme://host[:port]` of the redirect URI: the only origin the message is handed to ("null" when it has none).
    public var webMessageOrigin: String { Self.origin(of: redirectURI) }

    /// `scheme://host[:port]` of a URL, "null" when it has none.
    public static func origin(of url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.wireHost else {
            return "null"
        }
        let bracketed = host.contains(":" as Character) && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)\(components.port.map { ":\($0)" } ?? "")"
    }
}
