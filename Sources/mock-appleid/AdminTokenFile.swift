import Foundation

/// An admin token kept in a file (a container's secret): its first line, without surrounding white space.
enum AdminTokenFile {
    /// The most a token file is read (a token is at most 256 characters).
    static let limit = 4096

    /// The token in the file at `path` (a link to one is followed); an unreadable or empty file, or one that is
    /// not a regular file (a named pipe would hold the command until something wrote to it), is an error naming
    /// the path.
    static func read(_ path: String) throws -> String {
        // Opened without waiting for a writer, then refused unless it is a regular file.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw CommandError("cannot read the admin token file \(path)") }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw CommandError("the admin token file \(path) is not a regular file")
        }
        let data = (try? handle.read(upToCount: limit)) ?? nil
        let token = String(decoding: data ?? Data(), as: UTF8.self).split(whereSeparator: \.isNewline).first
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else { throw CommandError("the admin token file \(path) is empty") }
        return token
    }
}
