import Foundation

/// An admin token kept in a file (a container's secret): its first line, without surrounding white space.
enum AdminTokenFile {
    /// The most a token file is read (a token is at most 256 characters).
    static let limit = 4096

    /// The token in the file at `path`; an unreadable or empty file is an error naming the path.
    static func read(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CommandError("cannot read the admin token file \(path)") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: limit)) ?? nil
        let token = String(decoding: data ?? Data(), as: UTF8.self).split(whereSeparator: \.isNewline).first
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else { throw CommandError("the admin token file \(path) is empty") }
        return token
    }
}
