import Foundation
import Hummingbird
import MockAppleID
import MockAppleIDAudit
import NIOCore
import Synchronization

extension AdminRoutes {
    /// `POST /__admin/audit`: audits a relying party configured with this server (the RP audit, docs/audit.md),
    /// playing Apple's side with this server's world. The body is ``AuditRequest``'s fields plus `server`, this
    /// server's base URL as the relying party reaches it (default: the HTTP listener's). Inputs are checked before
    /// anything runs (400). The answer streams one JSON object per line: `{"progress": …}` as each case starts and
    /// ends, then `{"report": …}` (learned lines and cases, as `audit --format json` prints them) or `{"failure": …}`
    /// when the audit could not run or was stopped. An empty line every ``auditHeartbeat`` keeps the connection
    /// alive. One audit at a time per world in this process (409 otherwise); a client that goes away stops it.
    func registerAudit(on admin: RouterGroup<BasicRequestContext>) {
        admin.post("audit") { request, _ in
            let body = try await body(request, allowing: AuditRequest.fields + ["server"])
            let base = try body.text("server") ?? listeners.current?.under(configuration.pathPrefix).http.url
            guard let base, let baseURL = URL(string: base), ["http", "https"].contains(baseURL.scheme?.lowercased() ?? ""),
                  baseURL.host?.isEmpty == false
            else { throw AdminError.badRequest("server must be this server's base URL as the relying party reaches it, such as http://127.0.0.1:8080") }
            let apple = AppleSide(provider: provider, baseURL: baseURL)
            var asked: AuditConfiguration
            do throws(AuditFailure) {
                asked = try AuditRequest(json: body).configuration()
                asked.targets = configuration.auditTargets
                asked.localCertificateAuthority = try Self.keptCertificate(of: configuration.https)
                try Audit.check(asked, apple: apple)
            } catch {
                throw AdminError.badRequest(error.description)
            }
            guard let claim = AuditClaim.take(provider) else {
                throw AdminError(status: .conflict, code: "audit_running", message: "an audit is already running against this world")
            }
            // Names are looked up once, by the audit that holds the claim (a refusal gives the claim back).
            do throws(AuditFailure) { asked.pins = try await Audit.checkTargets(asked) } catch {
                throw AdminError.badRequest(error.description)
            }
            let audit = asked
            // The audit starts with the answer's body: an answer never sent (a failed save, a client already gone)
            // drops the claim with it, and the world is free again.
            let stream = ResponseBody { writer in
                let (lines, feed) = AsyncStream.makeStream(of: ByteBuffer.self)
                let job = Task {
                    defer { withExtendedLifetime(claim) {} }
                    do throws(AuditFailure) {
                        let report = try await Audit.run(audit, apple: apple) { line in feed.yield(Self.line("progress", .string(line))) }
                        feed.yield(Self.line("report", (try? JSONEncoder().encode(report)).flatMap { JSONValue.parse($0) } ?? .null))
                    } catch {
                        feed.yield(Self.line("failure", .string(error.description)))
                    }
                    feed.finish()
                }
                defer { job.cancel() }
                try await AdminResponse.writeLive(lines, feed: feed, keepAlive: ByteBuffer(string: "\n"), every: Self.auditHeartbeat,
                                                  to: &writer) {
                    feed.yield(Self.line("failure", .string("the server is shutting down; the audit stopped")))
                    job.cancel()
                }
            }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"], body: stream)
        }
    }

    /// How often an audit's answer sends an empty line while a case runs (a case may take a minute). A client gone
    /// away is noticed only when a write fails (the line after the one that draws its reset), so this also sets how
    /// soon an abandoned audit stops and frees its world: within about two beats.
    static let auditHeartbeat = Duration.seconds(2)

    /// The certificate of the local CA this server's HTTPS listener uses, when it keeps one in a folder: a relying party
    /// given a certificate by `tls issue` from it is trusted.
    private static func keptCertificate(of https: HTTPSConfiguration?) throws(AuditFailure) -> String? {
        guard case let .localCA(directory)? = https?.identity else { return nil }
        do { return try LocalCertificateAuthorityFiles.keptCertificate(in: directory) } catch {
            throw AuditFailure("the local certificate authority cannot be read: \(error)")
        }
    }

    private static func line(_ name: String, _ value: JSONValue) -> ByteBuffer {
        ByteBuffer(string: JSONValue.object([(name, value)]).serialized + "\n")
    }
}

/// A world's one running audit: taken before the audit starts, given back when the last holder lets go of it
/// (the audit's task when it ends, or an answer that was never sent).
private final class AuditClaim: Sendable {
    /// The worlds an audit is running against.
    private static let running = Mutex<Set<ObjectIdentifier>>([])
    private let world: ObjectIdentifier

    /// The claim on `world`'s audit; nil when an audit already holds it.
    static func take(_ world: AppleIDProvider) -> AuditClaim? {
        running.withLock { $0.insert(ObjectIdentifier(world)).inserted } ? AuditClaim(ObjectIdentifier(world)) : nil
    }

    private init(_ world: ObjectIdentifier) { self.world = world }

    deinit { _ = Self.running.withLock { $0.remove(world) } }
}
