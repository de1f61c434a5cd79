import Foundation
import NIOSSL

/// The HTTPS listener beside the HTTP one: the same routes over TLS (HTTP/1.1 and HTTP/2 by ALPN),
/// advertising `https://` endpoints, for relying parties that reach Apple's host names unmodified.
public struct HTTPSConfiguration: Sendable {
    /// Port to bind (on ``ServerConfiguration/host``); 0 picks a free one (see ``RunningServer/httpsPort``).
    public var port: Int
    /// Where the certificate comes from.
    public var identity: TLSIdentity
    /// The oldest TLS version a client may use: 1.2, as Apple's servers and current browsers require,
    /// unless a test of an old client lowers it.
    public var minimumVersion: TLSProtocolVersion

    /// HTTPS on `port` presenting `identity`, refusing clients older than `minimumVersion`.
    public init(port: Int, identity: TLSIdentity, minimumVersion: TLSProtocolVersion = .default) {
        self.port = port
        self.identity = identity
        self.minimumVersion = minimumVersion
    }
}

/// A TLS protocol version, as `serve --tls-min-version` spells it.
public enum TLSProtocolVersion: String, Sendable, CaseIterable, Comparable {
    case tls1_0 = "1.0"
    case tls1_1 = "1.1"
    case tls1_2 = "1.2"
    case tls1_3 = "1.3"

    /// The floor Apple's servers keep.
    public static let `default` = TLSProtocolVersion.tls1_2

    var nio: TLSVersion {
        switch self {
        case .tls1_0: return .tlsv1
        case .tls1_1: return .tlsv11
        case .tls1_2: return .tlsv12
        case .tls1_3: return .tlsv13
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The certificate the HTTPS listener presents.
public enum TLSIdentity: Sendable {
    /// A ``LocalCertificateAuthority`` kept in a directory (made on first use) issues a server
    /// certificate for Apple's host names at every start.
    case localCA(directory: String)
    /// A ``LocalCertificateAuthority`` made in memory for this run only.
    case temporaryCA
    /// A certificate chain and its private key from PEM files (bring your own).
    case files(certificateChain: String, privateKey: String)
}

/// A resolved ``HTTPSConfiguration``: the TLS context the listener presents (ALPN offering HTTP/2
/// and HTTP/1.1) and, for a local CA, the CA clients must trust. Made before anything listens, so a
/// bad file stops the start with its name.
struct TLSServerIdentity: Sendable {
    let port: Int
    let context: NIOSSLContext
    let authority: LocalCertificateAuthority?

    init(_ https: HTTPSConfiguration, now: Date = Date()) throws {
        var configuration: TLSConfiguration
        (authority, configuration) = try Self.resolve(https.identity, now: now)
        configuration.applicationProtocols = GuardedHTTPSChannel.applicationProtocols
        configuration.minimumTLSVersion = https.minimumVersion.nio
        do { context = try NIOSSLContext(configuration: configuration) } catch {
            throw TLSSetupError("the HTTPS certificate and key cannot be used together: \(error)")
        }
        port = https.port
    }

    private static func resolve(_ identity: TLSIdentity, now: Date) throws -> (LocalCertificateAuthority?, TLSConfiguration) {
        let authority: LocalCertificateAuthority
        switch identity {
        case let .localCA(directory):
            authority = try LocalCertificateAuthority.loadOrCreate(in: directory, now: now).authority
        case .temporaryCA:
            authority = try LocalCertificateAuthority.temporary(now: now)
        case let .files(certificateChain, privateKey):
            return (nil, try configuration(certificateChain: certificateChain, privateKey: privateKey))
        }
        return (authority, try authority.issueServerCertificate(now: now).serverTLSConfiguration())
    }

    private static func configuration(certificateChain: String, privateKey: String) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do { chain = try NIOSSLCertificate.fromPEMFile(certificateChain) } catch {
            throw TLSSetupError.unreadable(certificateChain, "certificate chain (PEM)", error)
        }
        guard !chain.isEmpty else { throw TLSSetupError("\(certificateChain): no PEM certificate in it") }
        do { key = try NIOSSLPrivateKey(file: privateKey, format: .pem) } catch {
            throw TLSSetupError.unreadable(privateKey, "private key (PEM)", error)
        }
        return .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }
}
