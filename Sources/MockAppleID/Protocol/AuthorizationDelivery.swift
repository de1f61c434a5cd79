/// What `/auth/authorize` sends back to the relying party, and how: fields appended to the
/// redirect URI's query or fragment, posted by an auto-submitting form, or posted as a message to the
/// page that opened the popup.
public struct AuthorizationDelivery: Sendable, Equatable {
    public let redirectURI: String
    public let mode: ResponseMode
    /// In delivery order: `state`, `code`, `id_token`, `user` (or `error`, `state`).
    public let fields: FormParameters

    public init(redirectURI: String, mode: ResponseMode, fields: FormParameters) {
        self.redirectURI = redirectURI
        self.mode = mode
        self.fields = fields
    }

    /// The URL to redirect to for `query` and `fragment`; nil for `form_post` and `web_message`.
    public var redirectLocation: String? {
        switch mode {
        case .query:
            let separator = redirectURI.utf8.contains(UInt8(ascii: "?")) ? "&" : "?"
            return redirectURI + separator + fields.urlEncoded
        case .fragment:
            return redirectURI + "#" + fields.urlEncoded
        case .formPost, .webMessage:
            return nil
        }
    }

    /// A field's value, e.g. `code`.
    public subscript(name: String) -> String? { fields.pairs.first { $0.name == name }?.value }
}
