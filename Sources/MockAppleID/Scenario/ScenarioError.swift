/// A scenario file that cannot be used, located by file, line, column and key path.
public struct ScenarioError: Error, Sendable, Equatable, CustomStringConvertible {
    public let file: String
    public let line: Int?
    public let column: Int?
    /// Where in the document, e.g. `teams[0].apps[1].servicesIDs[0].returnURLs[2]`.
    public let keyPath: String
    public let message: String

    public init(file: String, line: Int?, column: Int?, keyPath: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    /// `file:line:column: keyPath: message`, the form editors and CI logs link.
    public var description: String {
        var location = file
        if let line { location += ":\(line)" }
        if let column { location += ":\(column)" }
        return keyPath.isEmpty ? "\(location): \(message)" : "\(location): \(keyPath): \(message)"
    }
}
