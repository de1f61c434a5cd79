import ArgumentParser
import Foundation
import MockAppleIDServer

/// `serve`'s HTTPS flags: the listener's port and where its certificate comes from.
struct TLSOptions: ParsableArguments {
    @Option(help: "Also serve HTTPS (HTTP/2 and HTTP/1.1) on this port, as appleid.apple.com and appleid.cdn-apple.com; 0 picks a free port and prints it. 443 needs root or CAP_NET_BIND_SERVICE.")
    var httpsPort: Int?
    @Option(help: "Folder of the local certificate authority HTTPS uses (made on first use; default: $MOCK_APPLEID_TLS_DIR or ~/.mock-appleid/tls).")
    var tlsDir: String?
    @Option(help: "Serve HTTPS with this PEM certificate chain instead of the local CA's (with --tls-key).")
    var tlsCert: String?
    @Option(help: "The PEM private key of --tls-cert.")
    var tlsKey: String?
    @Option(help: ArgumentHelp("Also write the local CA's certificate (ca.pem) and bundle (ca-bundle.pem), never its key, into this folder at start: a volume relying parties mount to trust the CA.", valueName: "folder"))
    var tlsExportDir: String?
    @Option(help: ArgumentHelp("The oldest TLS version HTTPS accepts (Apple's servers: 1.2); lower it only to test an old client.", valueName: TLSProtocolVersion.allCases.map(\.rawValue).joined(separator: "|")))
    var tlsMinVersion = TLSProtocolVersion.default.rawValue

    /// The HTTPS listener the flags ask for, or nil.
    func configuration() throws -> HTTPSConfiguration? {
        guard let minimumVersion = TLSProtocolVersion(rawValue: tlsMinVersion) else {
            throw ValidationError("--tls-min-version must be one of \(TLSProtocolVersion.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let httpsPort else {
            if tlsDir != nil || tlsCert != nil || tlsKey != nil || tlsExportDir != nil || minimumVersion != .default {
                throw ValidationError("--tls-dir, --tls-cert, --tls-key, --tls-export-dir and --tls-min-version need --https-port")
            }
            return nil
        }
        if tlsExportDir != nil, tlsCert != nil { throw ValidationError("--tls-export-dir writes the local CA's files; it cannot go with --tls-cert") }
        guard (0...65535).contains(httpsPort) else { throw ValidationError("--https-port must be 0...65535") }
        switch (tlsCert, tlsKey) {
        case (nil, nil):
            return HTTPSConfiguration(port: httpsPort, identity: .localCA(directory: Self.absolute(tlsDir ?? Self.defaultDirectory)),
                                      minimumVersion: minimumVersion)
        case let (certificate?, key?):
            if tlsDir != nil { throw ValidationError("--tls-dir is for the local CA; it cannot go with --tls-cert") }
            return HTTPSConfiguration(port: httpsPort, identity: .files(certificateChain: certificate, privateKey: key), minimumVersion: minimumVersion)
        default:
            throw ValidationError("--tls-cert and --tls-key go together")
        }
    }

    /// Writes the local CA's certificate and bundle (made first, when the CA folder holds none) into
    /// --tls-export-dir, when both are asked for.
    func exportCertificates(_ configuration: HTTPSConfiguration?) throws {
        guard let tlsExportDir, case let .localCA(directory)? = configuration?.identity else { return }
        do {
            // The CA, and its bundle, made or kept; a CA kept in a folder always has its files.
            guard let files = try LocalCertificateAuthority.loadOrCreate(in: directory).authority.files else { return }
            let folder = URL(fileURLWithPath: tlsExportDir, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            // Copies of the CA folder's two public files, readable by every user whatever the umask: the
            // relying party reading them runs as another.
            for source in [files.certificate, files.bundle] {
                let file = folder.appendingPathComponent(URL(fileURLWithPath: source).lastPathComponent)
                try Data(contentsOf: URL(fileURLWithPath: source)).write(to: file, options: .atomic)
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
            }
        } catch {
            throw CommandError("--tls-export-dir \(tlsExportDir): \(error)")
        }
    }

    /// `path` made absolute against the working directory, so printed paths work from anywhere.
    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// `$MOCK_APPLEID_TLS_DIR`, or `~/.mock-appleid/tls`.
    static var defaultDirectory: String {
        if let configured = ProcessInfo.processInfo.environment["MOCK_APPLEID_TLS_DIR"], !configured.isEmpty { return configured }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".mock-appleid/tls").path
    }
}
