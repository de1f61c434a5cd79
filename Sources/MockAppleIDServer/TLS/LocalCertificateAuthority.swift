import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The certificate authority behind the HTTPS listener: a P-256 root that may vouch for Apple's
/// two host names, `localhost` and loopback addresses only (name constraints, path length 0), so
/// trusting it lets a relying party reach the fake as `https://appleid.apple.com` and nothing else.
/// Made once and kept in a directory (``loadOrCreate(in:now:)``), or made in memory for one run
/// (``temporary(now:)``); it issues a fresh server certificate at every start.
public struct LocalCertificateAuthority: Sendable {
    /// Years the CA is valid for.
    static let lifetimeYears = 10
    /// Days a server certificate is valid for (browsers refuse more than 398).
    static let serverCertificateDays = 397

    /// The CA certificate.
    public let certificate: Certificate
    let privateKey: P256.Signing.PrivateKey
    /// Where its files are, or nil for a temporary CA that lives in memory only.
    public let files: LocalCertificateAuthorityFiles?

    init(certificate: Certificate, privateKey: P256.Signing.PrivateKey, files: LocalCertificateAuthorityFiles?) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.files = files
    }

    /// A new CA held in memory only (for tests that start a server in-process).
    public static func temporary(now: Date = Date()) throws -> LocalCertificateAuthority {
        let key = P256.Signing.PrivateKey()
        return LocalCertificateAuthority(certificate: try makeCertificate(key: key, now: now), privateKey: key, files: nil)
    }

    /// The CA certificate, PEM: what a client adds to the roots it trusts.
    public var certificatePEM: String {
        get throws { try certificate.serializeAsPEM().pemString }
    }

    /// The CA certificate, DER (for `SecCertificateCreateWithData` and the like).
    public var certificateDER: [UInt8] {
        get throws { try certificate.derBytes }
    }

    /// SHA-256 of the DER certificate as colon-separated upper-case hex, the form `openssl x509
    /// -fingerprint -sha256` and `keytool` print.
    public var fingerprint: String {
        get throws { SHA256.hash(data: try certificateDER).map { String(format: "%02X", $0) }.joined(separator: ":") }
    }

    /// A client TLS configuration trusting this CA only (for AsyncHTTPClient and other SwiftNIO clients).
    public func clientTLSConfiguration() throws -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: certificateDER, format: .der)])
        return configuration
    }

    /// A new server certificate for ``AppleHostNames/dnsNames``, signed by this CA, with a new P-256
    /// key: valid from an hour before `now` for ``serverCertificateDays``, never past the CA's own end. It names no IP address:
    /// BoringSSL (SwiftNIO's TLS) refuses IP names under an IP name constraint, so clients connect by
    /// name (`localhost` rather than `127.0.0.1`).
    public func issueServerCertificate(now: Date = Date()) throws -> ServerCertificate {
        try issueCertificate(for: AppleHostNames.dnsNames, commonName: AppleHostNames.identity, now: now)
    }

    /// A new server certificate for a relying party served over https on this machine (`tls issue`): for `names`,
    /// each one of ``AppleHostNames/dnsNames`` or a name under one (the CA's name constraints allow no other), valid as
    /// ``issueServerCertificate(now:)``'s is. A client that trusts the CA (the audit does by default) trusts it.
    public func issueCertificate(for names: [String], now: Date = Date()) throws -> ServerCertificate {
        let names = names.map { $0.lowercased() }
        guard let first = names.first else { throw TLSSetupError("name at least one host the certificate is for") }
        if let malformed = names.first(where: { !Self.isHostName($0) }) {
            throw TLSSetupError("\(malformed) is not a host name (labels of letters, digits and -, dot-separated)")
        }
        let permitted = { (name: String) in AppleHostNames.dnsNames.contains { name == $0 || name.hasSuffix("." + $0) } }
        if let outside = names.first(where: { !permitted($0) }) {
            throw TLSSetupError("the local certificate authority may vouch only for \(AppleHostNames.dnsNames.joined(separator: ", ")) "
                                + "and names under them (its name constraints), not \(outside)")
        }
        return try issueCertificate(for: names, commonName: first, now: now)
    }

    /// Whether `name` is dot-separated labels of 1 to 63 letters, digits and `-`, none starting or ending with `-`.
    private static func isHostName(_ name: String) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return name.utf8.count <= 253 && labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
        }
    }

    private func issueCertificate(for names: [String], commonName: String, now: Date) throws -> ServerCertificate {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let notBefore = now.addingTimeInterval(-3600)
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: notBefore,
            notValidAfter: min(notBefore.addingTimeInterval(Double(Self.serverCertificateDays) * 86_400), certificate.notValidAfter),
            issuer: certificate.subject,
            subject: try DistinguishedName {
                OrganizationName("mock-appleid")
                CommonName(commonName)
            },
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names.map { GeneralName.dnsName($0) })
                SubjectKeyIdentifier(hash: publicKey)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: certificate.publicKey).keyIdentifier)
            },
            issuerPrivateKey: Certificate.PrivateKey(privateKey))
        return ServerCertificate(chain: [leaf, certificate], privateKey: key)
    }

    /// A self-signed CA certificate for `key`: path length 0, certificate and CRL signing only, and
    /// names constrained to ``AppleHostNames``.
    static func makeCertificate(key: P256.Signing.PrivateKey, now: Date) throws -> Certificate {
        let publicKey = Certificate.PublicKey(key.publicKey)
        let name = try DistinguishedName {
            OrganizationName("mock-appleid")
            CommonName("mock-appleid local CA")
        }
        let notBefore = now.addingTimeInterval(-3600)
        let notAfter = Calendar(identifier: .gregorian).date(byAdding: .year, value: lifetimeYears, to: notBefore) ?? notBefore
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: name, subject: name,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                Critical(NameConstraints(
                    permittedDNSDomains: AppleHostNames.dnsNames,
                    permittedIPRanges: AppleHostNames.permittedIPRanges.map { ASN1OctetString(contentBytes: $0[...]) }))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
    }
}

/// A server certificate chain (leaf first, then the CA) and the leaf's key.
public struct ServerCertificate: Sendable {
    /// The leaf, then the CA.
    public let chain: [Certificate]
    let privateKey: P256.Signing.PrivateKey

    /// The leaf certificate.
    public var leaf: Certificate { chain[0] }

    /// The chain, leaf first, in PEM: what a server presents.
    public var chainPEM: String {
        get throws { try chain.map { try $0.serializeAsPEM().pemString + "\n" }.joined() }
    }

    /// The leaf's private key in PEM (PKCS #8).
    public var privateKeyPEM: String { privateKey.pemRepresentation + "\n" }

    /// A TLS server configuration presenting this chain.
    func serverTLSConfiguration() throws -> TLSConfiguration {
        let chain = try self.chain.map { NIOSSLCertificateSource.certificate(try NIOSSLCertificate(bytes: $0.derBytes, format: .der)) }
        let key = try NIOSSLPrivateKey(bytes: Array(privateKey.pemRepresentation.utf8), format: .pem)
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
    }
}

extension Certificate {
    /// The certificate's DER encoding.
    var derBytes: [UInt8] {
        get throws {
            var serializer = DER.Serializer()
            try serializer.serialize(self)
            return serializer.serializedBytes
        }
    }
}
