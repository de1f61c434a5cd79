import Foundation

/// Where a scenario's key files are read from.
public protocol ScenarioResources: Sendable {
    /// The text of the file at `path`, as written in the scenario (relative to the scenario file).
    func text(at path: String) throws -> String
    /// Where `path` is, in words a person can follow (an absolute path for files on disk).
    func location(of path: String) -> String
}

/// Key files on disk, relative to the scenario file's folder.
public struct DirectoryResources: ScenarioResources {
    public let baseDirectory: URL

    public init(baseDirectory: URL) { self.baseDirectory = baseDirectory }

    public func text(at path: String) throws -> String {
        try String(contentsOf: url(of: path), encoding: .utf8)
    }

    public func location(of path: String) -> String { url(of: path).standardizedFileURL.path }

    private func url(of path: String) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : baseDirectory.appendingPathComponent(path)
    }
}

/// Key files held in memory: the built-in default scenario's, compiled into the binary, or those a
/// client sent along with a scenario file.
public struct EmbeddedResources: ScenarioResources {
    public let files: [String: String]
    /// Where the files came from, for error messages; `nil` for the built-in scenario's.
    public let origin: String?

    public init(files: [String: String], origin: String? = nil) {
        self.files = files
        self.origin = origin
    }

    public func text(at path: String) throws -> String {
        guard let text = files[path] else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return text
    }

    /// `path` as sent by `origin`, or for the built-in scenario the path within the mock-appleid
    /// repository (`../Keys/x` from `Scenarios/` is `Keys/x`).
    public func location(of path: String) -> String {
        if let origin { return "\(path) (sent by \(origin))" }
        return path.hasPrefix("../") ? String(path.dropFirst(3)) : "Scenarios/" + path
    }
}
