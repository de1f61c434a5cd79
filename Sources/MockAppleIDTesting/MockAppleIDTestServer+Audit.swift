import Foundation
import MockAppleIDAudit

extension MockAppleIDTestServer {
    /// Audits a relying party configured with this server (``baseURL`` as Apple): plays Apple's side of
    /// each case and returns the verdicts, so a Swift test can assert on them. The audit changes the server's
    /// world as it goes (it revokes consents, rotates the signing key, clears queued faults and the app's
    /// notification URL): give it a server of its own.
    ///
    /// ```swift
    /// try await MockAppleIDTestServer.withRunning(port: 8080) { server in
    ///     let report = try await server.audit(start: URL(string: "http://127.0.0.1:8000/login")!,
    ///                                         signedIn: URL(string: "http://127.0.0.1:8000/me")!)
    ///     #expect(!report.hasFailures)
    /// }
    /// ```
    public func audit(start: URL, signedIn: URL, persona: String = "jane",
                      cases: [AuditCase] = AuditCase.allCases) async throws(AuditFailure) -> AuditReport {
        try await audit(AuditConfiguration(startURL: start, signedInURL: signedIn, persona: persona, cases: cases))
    }

    /// Audits as `configuration` says; `progress` hears a line as each case starts and ends.
    public func audit(_ configuration: AuditConfiguration,
                      progress: @Sendable (String) -> Void = { _ in }) async throws(AuditFailure) -> AuditReport {
        guard let base = URL(string: baseURL) else { throw AuditFailure("the server's base URL \(baseURL) is not a URL") }
        return try await Audit.run(configuration, apple: AppleSide(provider: provider, baseURL: base), progress: progress)
    }
}
