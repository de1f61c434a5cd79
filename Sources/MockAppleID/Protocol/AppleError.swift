/// The error codes Apple's endpoints answer with (ErrorResponse).
public enum AppleErrorCode: String, Sendable, CaseIterable {
    case invalidRequest = "invalid_request"
    case invalidClient = "invalid_client"
    case invalidGrant = "invalid_grant"
    case unauthorizedClient = "unauthorized_client"
    case unsupportedGrantType = "unsupported_grant_type"
    case invalidScope = "invalid_scope"
}

/// An Apple-facing failure: what the relying party sees (`code`, optional `description`) and the
/// real reason, which goes only to the log and the request journal.
public struct AppleError: Error, Sendable, Equatable {
    public let code: AppleErrorCode
    /// Apple's `error_description`, only where Apple sends one.
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
}
