/// The token of an `Authorization: Bearer <token>` field: the scheme's case ignored, spaces around the
/// token trimmed; nil when the field is absent, names another scheme or carries no token. The admin
/// API's guard and `/auth/usermigrationinfo` both read it here.
func bearerToken(_ field: String?) -> String? {
    guard let field, field.utf8.count > 7, field.prefix(7).lowercased() == "bearer " else { return nil }
    let token = field.dropFirst(7).trimmingCharacters(in: .whitespaces)
    return token.isEmpty ? nil : token
}
