/// The error codes Apple's endpoints answer with (ErrorResponse).
public enum AppleErrorCode: String, Sendable, CaseIterable, Codable {
    case invalidRequest = "invalid_request"
    case invalidClient = "invalid_client"
    case invalidGrant = "invalid_grant"
    case unauthorizedClient = "unauthorized_client"
    case unsupportedGrantType = "unsupported_grant_type"
    case invalidScope = "invalid_scope"
}

/// Every Apple-facing failure, from `/auth/authorize` (rendered on the server's own page) to
/// `/auth/token` and `/auth/revoke` (a bare 400 JSON body): what the relying party sees (`code`,
/// Apple's terse `description` where Apple sends one) and the real reason, which goes only to the
/// log and the request journal.
public struct AppleError: Error, Sendable, Equatable, Codable {
    public let code: AppleErrorCode
    /// Apple's `error_description` (or the text of Apple's authorize error page), only where Apple sends one.
    public let description: String?
    /// Why the request failed, in words a developer can act on; never sent to the client.
    public let reason: String

    public init(_ code: AppleErrorCode, description: String? = nil, reason: String) {
        self.code = code
        self.description = description
        self.reason = reason
    }

    /// `{"error":"…"}` plus `error_description` when Apple sends one.
    public var body: JSONValue {
        var members: [(String, JSONValue)] = [("error", .string(code.rawValue))]
        if let description { members.append(("error_description", .string(description))) }
        return .object(members)
    }

    /// The text Apple's authorize error page shows.
    public var pageMessage: String { description ?? code.rawValue }
}
