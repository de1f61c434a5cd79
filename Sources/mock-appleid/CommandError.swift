/// A failure reported as `Error: <message>` without the usage text (which is for mistyped flags). The message
/// may quote a server's answer, so its control characters are written out (``Swift/String/terminalSafe``).
struct CommandError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description.terminalSafe }
}

extension Optional {
    /// The value, or `error` thrown.
    func orThrow(_ error: some Error) throws -> Wrapped {
        guard let self else { throw error }
        return self
    }
}
