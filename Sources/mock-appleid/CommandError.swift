/// A failure reported as `Error: <message>` without the usage text (which is for mistyped flags).
struct CommandError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

extension Optional {
    /// The value, or `error` thrown.
    func orThrow(_ error: some Error) throws -> Wrapped {
        guard let self else { throw error }
        return self
    }
}
