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

/// Key files compiled into the binary (the built-in default scenario's).
public struct EmbeddedResources: ScenarioResources {
    public let files: [String: String]

    public init(files: [String: String]) { self.files = files }

    public func text(at path: String) throws -> String {
        guard let text = files[path] else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
        return text
    }

    /// The path within the mock-appleid repository (`../Keys/x` from `Scenarios/` is `Keys/x`).
    public func location(of path: String) -> String {
        path.hasPrefix("../") ? String(path.dropFirst(3)) : "Scenarios/" + path
    }
}
