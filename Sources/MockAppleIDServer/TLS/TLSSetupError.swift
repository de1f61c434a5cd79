/// Why the HTTPS listener's certificate or key could not be made, read or written. Each names the file.
public struct TLSSetupError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, starting with or naming the file.
    public let description: String

    init(_ description: String) { self.description = description }

    static func unreadable(_ path: String, _ what: String, _ error: any Error) -> TLSSetupError {
        TLSSetupError("\(path): cannot read the \(what): \(error)")
    }

    static func unwritable(_ path: String, _ error: any Error) -> TLSSetupError {
        TLSSetupError("\(path): cannot write it: \(error)")
    }
}
