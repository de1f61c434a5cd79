/// Apple's OpenID discovery document (docs/apple-reference.md §10.1) with endpoints at `baseURL`.
public enum DiscoveryDocument {
    /// The document in Apple's field order; `issuer` stays Apple's unless the scenario changes it.
    public static func json(issuer: String, baseURL: String) -> JSONValue {
        let strings = { (values: [String]) in JSONValue.array(values.map(JSONValue.string)) }
        return .object([
            ("issuer", .string(issuer)),
            ("authorization_endpoint", .string(baseURL + "/auth/authorize")),
            ("token_endpoint", .string(baseURL + "/auth/token")),
            ("revocation_endpoint", .string(baseURL + "/auth/revoke")),
            ("jwks_uri", .string(baseURL + "/auth/keys")),
            ("response_types_supported", strings(["code"])),
            ("response_modes_supported", strings(["query", "fragment", "form_post"])),
            ("subject_types_supported", strings(["pairwise"])),
            ("id_token_signing_alg_values_supported", strings(["RS256"])),
            ("scopes_supported", strings(["openid", "email", "name"])),
            ("token_endpoint_auth_methods_supported", strings(["client_secret_post"])),
            ("claims_supported", strings([
                "aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss", "nonce", "nonce_supported",
                "real_user_status", "sub", "transfer_sub",
            ])),
        ])
    }
}
