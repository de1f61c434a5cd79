import Crypto
import Foundation
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a kept ``LocalCertificateAuthority`` lives: one directory (mode 0700) holding the CA
/// certificate, its key (mode 0600) and a bundle of the system's roots plus the CA.
public struct LocalCertificateAuthorityFiles: Sendable, Equatable {
    /// The folder.
    public let directory: String
    /// The system roots file the bundle was built from; nil when none was found (the bundle then holds the CA only).
    public let systemRoots: String?

    /// The CA certificate (PEM): what clients are told to trust.
    public var certificate: String { directory + "/ca.pem" }
    /// The CA's private key (PEM, mode 0600). Never printed.
    public var privateKey: String { directory + "/ca-key.pem" }
    /// The system's roots followed by the CA (PEM), for runtimes whose variable replaces the default roots.
    public var bundle: String { directory + "/ca-bundle.pem" }
    var lock: String { directory + "/.lock" }

    /// Root bundles of common systems, first found wins: Debian, Ubuntu and Alpine; Fedora and
    /// RHEL; openSUSE; macOS and the BSDs.
    static let systemRootCandidates = [
        "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/ca-bundle.pem", "/etc/ssl/cert.pem",
    ]
}

extension LocalCertificateAuthority {
    /// The CA kept in `directory`, made (with the directory) when it holds none yet. The bundle is
    /// rewritten from the current system roots every time. Several processes may call this at
    /// once: a lock file in the directory lets one make the CA and the others read it.
    public static func loadOrCreate(in directory: String, now: Date = Date()) throws -> (authority: LocalCertificateAuthority, created: Bool) {
        let systemRoots = LocalCertificateAuthorityFiles.systemRootCandidates.first { FileManager.default.isReadableFile(atPath: $0) }
        let files = LocalCertificateAuthorityFiles(directory: directory, systemRoots: systemRoots)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw TLSSetupError("\(directory): cannot create the certificate authority's directory: \(error)")
        }
        return try withLock(files.lock) {
            let manager = FileManager.default
            let hasCertificate = manager.fileExists(atPath: files.certificate)
            let hasKey = manager.fileExists(atPath: files.privateKey)
            let authority: LocalCertificateAuthority
            let created: Bool
            switch (hasCertificate, hasKey) {
            case (true, true):
                authority = try load(files, now: now)
                created = false
            case (false, false):
                let key = P256.Signing.PrivateKey()
                authority = LocalCertificateAuthority(certificate: try makeCertificate(key: key, now: now), privateKey: key, files: files)
                try writeFile(files.privateKey, key.pemRepresentation + "\n", mode: 0o600)
                try writeFile(files.certificate, try authority.certificatePEM + "\n", mode: 0o644)
                created = true
            default:
                let missing = hasCertificate ? files.privateKey : files.certificate
                throw TLSSetupError("\(missing) is missing beside \(hasCertificate ? files.certificate : files.privateKey); remove \(directory) to make a new certificate authority")
            }
            try writeBundle(for: authority, files: files)
            return (authority, created)
        }
    }

    private static func load(_ files: LocalCertificateAuthorityFiles, now: Date) throws -> LocalCertificateAuthority {
        let certificate: Certificate
        let key: P256.Signing.PrivateKey
        do { certificate = try Certificate(pemEncoded: try readText(files.certificate)) } catch let error as TLSSetupError { throw error } catch {
            throw TLSSetupError("\(files.certificate): not a PEM certificate (\(error)); remove \(files.directory) to make a new certificate authority")
        }
        do { key = try P256.Signing.PrivateKey(pemRepresentation: try readText(files.privateKey)) } catch let error as TLSSetupError { throw error } catch {
            throw TLSSetupError("\(files.privateKey): not a P-256 private key in PEM (\(error)); remove \(files.directory) to make a new certificate authority")
        }
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw TLSSetupError("\(files.privateKey) is not the key of \(files.certificate); remove \(files.directory) to make a new certificate authority")
        }
        guard certificate.notValidAfter > now else {
            throw TLSSetupError("\(files.certificate) expired on \(certificate.notValidAfter); remove \(files.directory) to make a new certificate authority (and trust the new one)")
        }
        return LocalCertificateAuthority(certificate: certificate, privateKey: key, files: files)
    }

    private static func writeBundle(for authority: LocalCertificateAuthority, files: LocalCertificateAuthorityFiles) throws {
        var bundle = ""
        if let systemRoots = files.systemRoots {
            bundle = try readText(systemRoots, limit: 16 * 1024 * 1024)
            if !bundle.isEmpty, !bundle.hasSuffix("\n") { bundle += "\n" }
        }
        bundle += "# mock-appleid local CA\n" + (try authority.certificatePEM) + "\n"
        try writeFile(files.bundle, bundle, mode: 0o644)
    }

    /// Reads a text file of at most `limit` bytes.
    static func readText(_ path: String, limit: Int = 64 * 1024) throws -> String {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch { throw TLSSetupError.unreadable(path, "file", error) }
        guard data.count <= limit else { throw TLSSetupError("\(path): larger than \(limit) bytes") }
        guard let text = String(data: data, encoding: .utf8) else { throw TLSSetupError("\(path): not UTF-8 text") }
        return text
    }

    /// Writes `text` to a new file beside `path` created with `mode`, then renames it over `path`,
    /// so the file never exists with looser permissions or half written.
    static func writeFile(_ path: String, _ text: String, mode: mode_t) throws {
        let temporary = "\(path).\(getpid()).tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard descriptor >= 0 else { throw TLSSetupError.unwritable(path, POSIXErrorText.current) }
        do {
            defer { close(descriptor) }
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw TLSSetupError.unwritable(path, POSIXErrorText.current) }
                bytes = bytes.dropFirst(written)
            }
            guard fsync(descriptor) == 0 else { throw TLSSetupError.unwritable(path, POSIXErrorText.current) }
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = POSIXErrorText.current
            unlink(temporary)
            throw TLSSetupError.unwritable(path, error)
        }
    }

    /// Runs `body` holding an exclusive lock on the file at `path`.
    private static func withLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0 else { throw TLSSetupError.unwritable(path, POSIXErrorText.current) }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else { throw TLSSetupError("\(path): cannot lock it: \(POSIXErrorText.current)") }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}

extension LocalCertificateAuthorityFiles {
    /// The certificate (PEM) of the CA kept in `directory`, or nil when the folder holds none; nothing is made. A
    /// file that is not such a CA (one self-signed certificate of a CA whose name constraints allow no more than
    /// ``AppleHostNames``) is refused, so that trusting it can never trust more.
    public static func keptCertificate(in directory: String) throws -> String? {
        let path = LocalCertificateAuthorityFiles(directory: directory, systemRoots: nil).certificate
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text = try LocalCertificateAuthority.readText(path)
        let permitted: [String]
        let addresses: [[UInt8]]
        do {
            let certificate = try Certificate(pemEncoded: text)
            guard text.components(separatedBy: "BEGIN CERTIFICATE").count == 2, certificate.issuer == certificate.subject,
                  case .isCertificateAuthority? = try certificate.extensions.basicConstraints,
                  let constraints = try certificate.extensions.nameConstraints
            else { throw TLSSetupError("not one name-constrained CA certificate") }
            permitted = Array(constraints.permittedDNSDomains)
            addresses = constraints.permittedIPRanges.map { Array($0.bytes) }
        } catch {
            throw TLSSetupError("\(path) is not a mock-appleid local certificate authority (\(error)); it is not trusted")
        }
        guard permitted.sorted() == AppleHostNames.dnsNames.sorted(), addresses == AppleHostNames.permittedIPRanges else {
            throw TLSSetupError("\(path) may vouch for \(permitted.joined(separator: ", ")) and \(addresses.count) address ranges, "
                                + "not only for \(AppleHostNames.dnsNames.joined(separator: ", ")) and loopback; it is not trusted")
        }
        return text
    }
}

extension ServerCertificate {
    /// Writes the chain (PEM, mode 0644) to `chainPath` and the key (PEM, mode 0600) to `keyPath`, each whole or not at all.
    public func write(chainTo chainPath: String, keyTo keyPath: String) throws {
        guard URL(fileURLWithPath: chainPath).standardizedFileURL != URL(fileURLWithPath: keyPath).standardizedFileURL else {
            throw TLSSetupError("the certificate and its key need two files, not \(chainPath) for both")
        }
        try LocalCertificateAuthority.writeFile(keyPath, privateKeyPEM, mode: 0o600)
        try LocalCertificateAuthority.writeFile(chainPath, try chainPEM, mode: 0o644)
    }
}

/// The text of a POSIX error (`errno`).
struct POSIXErrorText: Error, CustomStringConvertible {
    let code: Int32

    /// The last error of this thread.
    static var current: POSIXErrorText { POSIXErrorText(code: errno) }

    var description: String { String(cString: strerror(code)) }
}
