import Foundation
import Hummingbird
import MockAppleID
import MockAppleIDAudit
import NIOCore
import Synchronization

extension AdminRoutes {
    /// `POST /__admin/audit`: audits a relying party configured with this server (the RP audit, docs/audit.md),
    /// playing Apple's side with this server's world. The body is ``AuditRequest``'s fields plus `server`, this
    /// server's base URL as the relying party reaches it (default: the HTTP listener's). The answer streams one
    /// JSON object per line: `{"progress": …}` as each case starts and ends, then `{"report": …}` (learned lines and
    /// cases, as `audit --format json` prints them) or `{"failure": …}` when the audit could not run. An empty line
    /// every ``auditHeartbeat`` keeps the connection alive. One audit at a time per world (409 otherwise).
    func registerAudit(on admin: RouterGroup<BasicRequestContext>) {
        admin.post("audit") { request, _ in
            let body = try await body(request, allowing: AuditRequest.fields + ["server"])
            let audit: AuditConfiguration
            do throws(AuditFailure) { audit = try AuditRequest(json: body).configuration() } catch {
                throw AdminError.badRequest(error.description)
            }
            let base = try body.text("server") ?? listeners.current?.under(configuration.pathPrefix).http.url
            guard let base, let baseURL = URL(string: base), baseURL.host?.isEmpty == false else {
                throw AdminError.badRequest("server must be this server's base URL as the relying party reaches it, such as http://127.0.0.1:8080")
            }
            guard Self.runningAudits.withLock({ $0.insert(ObjectIdentifier(provider)).inserted }) else {
                throw AdminError(status: .conflict, code: "audit_running", message: "an audit is already running against this world")
            }
            let (lines, feed) = AsyncStream.makeStream(of: ByteBuffer.self)
            let job = Task { [provider] in
                defer { _ = Self.runningAudits.withLock { $0.remove(ObjectIdentifier(provider)) } }
                do throws(AuditFailure) {
                    let report = try await Audit.run(audit, apple: AppleSide(provider: provider, baseURL: baseURL)) { line in
                        feed.yield(Self.line("progress", .string(line)))
                    }
                    feed.yield(Self.line("report", JSONValue.parse(Data(report.json.utf8)) ?? .null))
                } catch {
                    feed.yield(Self.line("failure", .string(error.description)))
                }
                feed.finish()
            }
            let stream = ResponseBody { writer in
                // A client that goes away stops the audit.
                defer { job.cancel() }
                try await AdminResponse.writeLive(lines, feed: feed, keepAlive: ByteBuffer(string: "\n"), every: Self.auditHeartbeat,
                                                  to: &writer) { job.cancel() }
            }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"], body: stream)
        }
    }

    /// How often an audit's answer sends an empty line while a case runs (a case may take a minute).
    static let auditHeartbeat = Duration.seconds(10)

    /// The worlds an audit is running against.
    private static let runningAudits = Mutex<Set<ObjectIdentifier>>([])

    private static func line(_ name: String, _ value: JSONValue) -> ByteBuffer {
        ByteBuffer(string: JSONValue.object([(name, value)]).serialized + "\n")
    }
}
