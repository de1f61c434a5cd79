import Foundation
import MockAppleID
import MockAppleIDAudit
import MockAppleIDServer
import Synchronization

/// `POST /__admin/audit`, which `serve` and ``MockAppleIDTestServer`` add to the server's admin API
/// (``ServerConfiguration/adminRoutes``): audits a relying party configured with the server (the RP audit,
/// docs/audit.md), playing Apple's side with the world of the admin API it is asked on. The body is
/// ``AuditRequest``'s fields plus `server`, the server's base URL as the relying party reaches it (default: the HTTP
/// listener's). Inputs are checked before anything runs (400). The answer streams one JSON object per line:
/// `{"progress": …}` as each case starts and ends, then `{"report": …}` (learned lines and cases, as
/// `audit --format json` prints them) or `{"failure": …}` when the audit could not run or was stopped. One audit at a
/// time per world (409 otherwise); a client that goes away stops it.
public enum AuditAdminRoute {
    /// The route, sending requests only to `targets` (`serve --audit-targets`; loopback and private addresses by
    /// default, link-local and cloud-metadata ones never) and trusting, besides the system's, the certificate authority
    /// the server's HTTPS listener keeps in a folder (a relying party given a certificate by `tls issue` from it).
    public static func make(targets: AuditTargets = .loopbackAndPrivate) -> AdminStreamingRoute {
        let claims = AuditClaims()
        return AdminStreamingRoute(path: "audit", fields: AuditRequest.fields + ["server"]) { request throws(AdminRouteRefusal) in
            let audit = try await checked(request, targets: targets)
            guard let claim = claims.take(request.provider) else {
                throw AdminRouteRefusal(status: .conflict, code: "audit_running", message: "an audit is already running against this world")
            }
            var configuration = audit.configuration
            // Names are looked up once, by the audit that holds the claim (a refusal gives the claim back).
            do throws(AuditFailure) { configuration.pins = try await Audit.checkTargets(configuration) } catch {
                throw .badRequest(error.description)
            }
            let asked = configuration
            return AdminLineStream(shutdownLine: line("failure", .string("the server is shutting down; the audit stopped"))) { send in
                defer { withExtendedLifetime(claim) {} }
                if let refusedCA = audit.refusedCA { send(line("progress", .string("note: \(refusedCA)"))) }
                do throws(AuditFailure) {
                    let report = try await Audit.run(asked, apple: audit.apple) { text in send(line("progress", .string(text))) }
                    send(line("report", (try? JSONEncoder().encode(report)).flatMap { JSONValue.parse($0) } ?? .null))
                } catch {
                    send(line("failure", .string(error.description)))
                }
            }
        }
    }

    /// The audit `request` asks for, checked: its inputs, Apple's side and the server's base URL; and why the CA the
    /// server's HTTPS listener keeps is not trusted, when it is refused.
    private static func checked(_ request: AdminRouteRequest, targets: AuditTargets) async throws(AdminRouteRefusal)
        -> (configuration: AuditConfiguration, apple: AppleSide, refusedCA: String?) {
        let given = request.body["server"]
        if let given, given.stringValue == nil { throw .badRequest("server must be text") }
        let base = given?.stringValue ?? request.baseURL
        guard let base, let baseURL = URL(string: base), ["http", "https"].contains(baseURL.scheme?.lowercased() ?? ""),
              baseURL.host?.isEmpty == false
        else { throw .badRequest("server must be this server's base URL as the relying party reaches it, such as http://127.0.0.1:8080") }
        let apple = AppleSide(provider: request.provider, baseURL: baseURL)
        do throws(AuditFailure) {
            var configuration = try AuditRequest(json: request.body).configuration()
            configuration.targets = targets
            var refusedCA: String?
            do { configuration.localCertificateAuthority = try keptCertificate(of: request.configuration.https) } catch {
                refusedCA = "\(error)"
            }
            try Audit.check(configuration, apple: apple)
            return (configuration, apple, refusedCA)
        } catch {
            throw .badRequest(error.description)
        }
    }

    /// The certificate of the local CA the server's HTTPS listener uses, when it keeps one in a folder; a folder
    /// holding another CA is refused (it is not trusted, and the audit's first progress line says why).
    private static func keptCertificate(of https: HTTPSConfiguration?) throws -> String? {
        guard case let .localCA(directory)? = https?.identity else { return nil }
        return try LocalCertificateAuthorityFiles.keptCertificate(in: directory)
    }

    private static func line(_ name: String, _ value: JSONValue) -> JSONValue { .object([(name, value)]) }
}

/// The worlds an audit is running against, through one route: a world's claim is taken before its audit starts and
/// given back when the last holder lets go of it (the audit's work when it ends, or an answer that was never sent).
private final class AuditClaims: Sendable {
    private let running = Mutex<Set<ObjectIdentifier>>([])

    /// The claim on `world`'s audit; nil when an audit already holds it.
    func take(_ world: AppleIDProvider) -> Claim? {
        let id = ObjectIdentifier(world)
        return running.withLock { $0.insert(id).inserted } ? Claim(self, id) : nil
    }

    fileprivate func release(_ world: ObjectIdentifier) { _ = running.withLock { $0.remove(world) } }

    final class Claim: Sendable {
        private let claims: AuditClaims
        private let world: ObjectIdentifier

        fileprivate init(_ claims: AuditClaims, _ world: ObjectIdentifier) {
            self.claims = claims
            self.world = world
        }

        deinit { claims.release(world) }
    }
}
