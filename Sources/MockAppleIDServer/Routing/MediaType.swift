import Hummingbird

extension Request {
    /// Whether the body is declared as exactly `mediaType`: the `Content-Type` up to its first `;`,
    /// trimmed, compared without case (`application/json; charset=utf-8` is JSON,
    /// `application/jsonx` is not).
    func declares(_ mediaType: String) -> Bool {
        guard let value = headers[.contentType] else { return false }
        let declared = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return declared.trimmingCharacters(in: .whitespaces).lowercased() == mediaType
    }

    /// Refuses a request whose body is not declared `application/json`.
    func requireJSONContentType() throws(AdminError) {
        guard declares("application/json") else {
            throw AdminError(status: .unsupportedMediaType, code: "unsupported_media_type",
                             message: "admin writes must be sent with Content-Type: application/json")
        }
    }
}
