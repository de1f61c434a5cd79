import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import MockAppleID
@testable import MockAppleIDServer
import MockAppleIDTesting
import NIOSSL
import Testing
import X509

/// The local certificate authority and the HTTPS listener.
@Suite("HTTPS and the local CA")
struct HTTPSTests {
    private static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("mock-appleid-tls-\(UUID().uuidString)").path
    }

    private static func permissions(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    private static func verify(_ leaf: Certificate, by authority: LocalCertificateAuthority, host: String) async -> Bool {
        var verifier = Verifier(rootCertificates: CertificateStore([authority.certificate])) {
            RFC5280Policy()
            ServerIdentityPolicy(serverHostname: host, serverIP: nil)
        }
        if case .validCertificate = await verifier.validate(leaf: leaf, intermediates: CertificateStore()) { return true }
        return false
    }

    @Test("the CA is made once and kept: key 0600 in a 0700 folder, the same certificate next time, a bundle ending in it")
    func keptAuthority() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try LocalCertificateAuthority.loadOrCreate(in: directory)
        #expect(first.created)
        let files = try #require(first.authority.files)
        #expect(try Self.permissions(files.privateKey) == 0o600)
        #expect(try Self.permissions(directory) == 0o700)
        let second = try LocalCertificateAuthority.loadOrCreate(in: directory)
        #expect(!second.created)
        #expect(try second.authority.fingerprint == first.authority.fingerprint)
        let bundle = try String(contentsOfFile: files.bundle, encoding: .utf8)
        #expect(bundle.hasSuffix(try first.authority.certificatePEM + "\n"))
        if files.systemRoots != nil { #expect(bundle.components(separatedBy: "BEGIN CERTIFICATE").count > 2) }
    }

    @Test("a damaged CA folder is an error naming the file, never a new CA")
    func damagedAuthority() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try #require(try LocalCertificateAuthority.loadOrCreate(in: directory).authority.files)
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: files.privateKey, atomically: true, encoding: .utf8)
        let foreignKey = #expect(throws: TLSSetupError.self) { try LocalCertificateAuthority.loadOrCreate(in: directory) }
        #expect(foreignKey?.description.contains("\(files.privateKey) is not the key of \(files.certificate)") == true)
        try "not a certificate".write(toFile: files.certificate, atomically: true, encoding: .utf8)
        let damaged = #expect(throws: TLSSetupError.self) { try LocalCertificateAuthority.loadOrCreate(in: directory) }
        #expect(damaged?.description.hasPrefix("\(files.certificate): not a PEM certificate") == true)
        try FileManager.default.removeItem(atPath: files.certificate)
        let missing = #expect(throws: TLSSetupError.self) { try LocalCertificateAuthority.loadOrCreate(in: directory) }
        #expect(missing?.description.hasPrefix("\(files.certificate) is missing") == true)
        #expect(!FileManager.default.fileExists(atPath: files.certificate))
    }

    @Test("the server certificate verifies for Apple's hosts and localhost; the CA cannot vouch for any other name")
    func nameConstraints() async throws {
        let authority = try LocalCertificateAuthority.temporary()
        let server = try authority.issueServerCertificate()
        for host in ["appleid.apple.com", "appleid.cdn-apple.com", "localhost"] {
            #expect(await Self.verify(server.leaf, by: authority, host: host), "\(host)")
        }
        #expect(await !Self.verify(server.leaf, by: authority, host: "example.com"))
        let lifetime = server.leaf.notValidAfter.timeIntervalSince(server.leaf.notValidBefore)
        #expect(lifetime <= 397 * 86_400)

        let foreignKey = P256.Signing.PrivateKey()
        let foreign = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(foreignKey.publicKey),
            notValidBefore: Date().addingTimeInterval(-60), notValidAfter: Date().addingTimeInterval(86_400),
            issuer: authority.certificate.subject, subject: try DistinguishedName { CommonName("example.com") },
            extensions: try Certificate.Extensions { SubjectAlternativeNames([.dnsName("example.com")]) },
            issuerPrivateKey: .init(authority.privateKey))
        #expect(await !Self.verify(foreign, by: authority, host: "example.com"))
    }

    @Test("a relying party's certificate (tls issue) verifies for its names only; a name outside the CA's constraints is refused")
    func relyingPartyCertificate() async throws {
        let authority = try LocalCertificateAuthority.temporary()
        let issued = try authority.issueCertificate(for: ["LocalHost", "rp.localhost"])
        for host in ["localhost", "rp.localhost"] { #expect(await Self.verify(issued.leaf, by: authority, host: host), "\(host)") }
        #expect(await !Self.verify(issued.leaf, by: authority, host: "appleid.apple.com"))
        #expect(try issued.chainPEM.components(separatedBy: "BEGIN CERTIFICATE").count == 3)
        let refused = #expect(throws: TLSSetupError.self) { try authority.issueCertificate(for: ["localhost", "rp.example.com"]) }
        #expect(refused?.description.hasSuffix("not rp.example.com") == true)
        #expect(throws: TLSSetupError.self) { try authority.issueCertificate(for: []) }
        for malformed in ["*.localhost", "a..localhost", ".localhost", "a b.localhost", "-a.localhost"] {
            #expect(throws: TLSSetupError.self, "\(malformed)") { try authority.issueCertificate(for: [malformed]) }
        }
        #expect(throws: TLSSetupError.self) { try issued.write(chainTo: "/tmp/same.pem", keyTo: "/tmp/./same.pem") }
    }

    @Test("the audit trusts a kept CA only when it is one name-constrained CA certificate of Apple's hosts and localhost")
    func keptCertificateIsChecked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kept-ca-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try LocalCertificateAuthorityFiles.keptCertificate(in: directory) == nil)
        let path = directory + "/ca.pem"
        let authority = try LocalCertificateAuthority.temporary()
        try authority.certificatePEM.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try LocalCertificateAuthorityFiles.keptCertificate(in: directory) == authority.certificatePEM)
        // A CA with no name constraints, a leaf, and a bundle of two are refused.
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("another CA") }
        let unconstrained = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: Date().addingTimeInterval(-60),
            notValidAfter: Date().addingTimeInterval(86_400), issuer: name, subject: name,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0)) },
            issuerPrivateKey: .init(key))
        // The right names, but no constraint on addresses: it could vouch for any IP address.
        let namesOnly = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: Date().addingTimeInterval(-60),
            notValidAfter: Date().addingTimeInterval(86_400), issuer: name, subject: name,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(NameConstraints(permittedDNSDomains: AppleHostNames.dnsNames))
            },
            issuerPrivateKey: .init(key))
        let leaf = try authority.issueCertificate(for: ["localhost"])
        for refused in [try unconstrained.serializeAsPEM().pemString, try namesOnly.serializeAsPEM().pemString,
                        try leaf.leaf.serializeAsPEM().pemString, try leaf.chainPEM] {
            try refused.write(toFile: path, atomically: true, encoding: .utf8)
            let error = #expect(throws: TLSSetupError.self) { try LocalCertificateAuthorityFiles.keptCertificate(in: directory) }
            #expect(error?.description.hasSuffix("it is not trusted") == true)
        }
    }

    @Test("the embedding library serves HTTPS with a temporary CA; a client trusting it gets https:// endpoints, others are refused")
    func embeddedHTTPS() async throws {
        try await MockAppleIDTestServer.withRunning(https: true) { server in
            let base = try #require(server.httpsBaseURL)
            let authority = try #require(server.certificateAuthority)
            let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                    configuration: .init(tlsConfiguration: try authority.clientTLSConfiguration()))
            // Without retries, the first refused handshake is the answer (with them, the client tries again until
            // the deadline and a slow machine's first attempt could end as a connect timeout instead).
            var once = HTTPClient.Configuration()
            once.connectionPool.retryConnectionEstablishment = false
            let untrusting = HTTPClient(eventLoopGroupProvider: .singleton, configuration: once)
            do {
                let response = try await client.execute(HTTPClientRequest(url: base + "/.well-known/openid-configuration"), timeout: .seconds(10))
                #expect(response.status == .ok)
                let body = try await response.body.collect(upTo: 64 * 1024)
                let document = try #require(JSONValue.parse(Data(body.readableBytesView)))
                #expect(document["token_endpoint"] == .string(base + "/auth/token"))
                #expect(document["issuer"] == .string("https://appleid.apple.com"))
                let refused = await #expect(throws: (any Error).self) {
                    _ = try await untrusting.execute(HTTPClientRequest(url: base + "/auth/keys"), timeout: .seconds(30))
                }
                #if os(Linux)
                // NIOSSL's wording; on Apple platforms the singleton group is Network.framework's, which words it otherwise.
                #expect(refused.map { "\($0)" }?.contains("CERTIFICATE_VERIFY_FAILED") == true)
                #else
                #expect(refused != nil)
                #endif
            } catch {
                Issue.record(error)
            }
            try await client.shutdown()
            try await untrusting.shutdown()
        }
    }

    @Test("an HTTP/2 stream gets its peer mark (replacing the client's) and is closed when its request is not read in time")
    func streamGuard() throws {
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: 1)
        let open = EmbeddedChannel(handler: StreamGuardHandler(peerIsLoopback: false, requestTimeout: .seconds(40)))
        try open.connect(to: address).wait()
        var spoofed = HTTPRequest(method: .get, scheme: "https", authority: "appleid.apple.com", path: "/__admin/health")
        spoofed.headerFields[ConnectionPeer.field] = ConnectionPeer.loopback
        try open.writeInbound(HTTPRequestPart.head(spoofed))
        var marked = spoofed
        marked.headerFields[ConnectionPeer.field] = ConnectionPeer.remote
        #expect(try open.readInbound(as: HTTPRequestPart.self) == .head(marked))
        open.embeddedEventLoop.advanceTime(by: .seconds(39))
        #expect(open.isActive)
        open.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!open.isActive)

        let finished = EmbeddedChannel(handler: StreamGuardHandler(peerIsLoopback: true, requestTimeout: .seconds(40)))
        try finished.connect(to: address).wait()
        try finished.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: "https", authority: "localhost", path: "/auth/keys")))
        try finished.writeInbound(HTTPRequestPart.end(nil))
        finished.embeddedEventLoop.advanceTime(by: .seconds(120))
        #expect(finished.isActive)
    }

    /// Whether a client that speaks at most `newest` gets `/auth/keys` from an HTTPS listener that accepts `floor` and later.
    private static func handshake(clientNewest newest: TLSVersion, serverFloor floor: TLSProtocolVersion) async throws -> Bool {
        let provider = try AppleIDProvider(scenario: BuiltInScenario.load())
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, logLevel: .critical)
        configuration.https = HTTPSConfiguration(port: 0, identity: .temporaryCA, minimumVersion: floor)
        let (started, continuation) = AsyncStream.makeStream(of: RunningServer.self)
        let group = MockAppleIDServer(provider: provider, configuration: configuration) { continuation.yield($0) }.makeServiceGroup()
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let running = try #require(await started.first { _ in true })
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            tls.minimumTLSVersion = .tlsv1
            tls.maximumTLSVersion = newest
            tls.applicationProtocols = ["http/1.1"]
            var once = HTTPClient.Configuration(tlsConfiguration: tls)
            once.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: once)
            let served: Bool
            do {
                let response = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(running.httpsPort ?? 0)/auth/keys"),
                                                        timeout: .seconds(10))
                served = response.status == .ok
            } catch {
                served = false
            }
            try await client.shutdown()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return served
        }
    }

    @Test("HTTPS refuses TLS 1.0 and 1.1 (a real socket), accepts 1.2; a lowered floor admits an old client")
    func tlsFloor() async throws {
        #expect(try await !Self.handshake(clientNewest: .tlsv1, serverFloor: .default))
        #expect(try await !Self.handshake(clientNewest: .tlsv11, serverFloor: .default))
        #expect(try await Self.handshake(clientNewest: .tlsv12, serverFloor: .default))
        #expect(try await Self.handshake(clientNewest: .tlsv11, serverFloor: .tls1_0))
        #expect(try await !Self.handshake(clientNewest: .tlsv12, serverFloor: .tls1_3))
    }
}
