import Foundation
import MockAppleID

/// Where a developer key came from, as the banner and the ready file tell a relying party (so it can sign
/// client secrets with the `.p8`): a file on this machine, a file of the mock-appleid repository compiled
/// into the binary (the built-in scenario's), or text inline in the scenario.
enum DeveloperKeyLocation {
    case file(String)
    case builtIn(String)
    case inline

    init(_ key: DeveloperKey) {
        guard let location = key.location else {
            self = .inline
            return
        }
        if location.hasPrefix("/") {
            self = .file(location)
            return
        }
        let local = URL(fileURLWithPath: location).standardizedFileURL.path
        self = FileManager.default.fileExists(atPath: local) ? .file(local) : .builtIn(location)
    }

    /// As the banner words it.
    var description: String {
        switch self {
        case let .file(path): return path
        case let .builtIn(path): return "\(path) in the mock-appleid repository (built in)"
        case .inline: return "inline in the scenario"
        }
    }
}
