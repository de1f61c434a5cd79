import ArgumentParser
import Foundation
import MockAppleID
import MockAppleIDAudit
import MockAppleIDTesting

/// `mock-appleid audit`: plays Apple's side of the tricky cases against a relying party the user runs
/// and owns, and reports case by case whether it did the right thing.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Test a relying party: play Apple's side of the tricky cases against it and report what it got wrong.",
        discussion: """
        Starts a mock server (the built-in scenario, or --scenario) on --host and --port, which the relying party \
        must be configured with, follows --start in a browser of its own, answers as Apple would, and judges each \
        case by the --signed-in page. Only for relying parties you own or are allowed to test. Exit status: 0 when \
        no case FAILs, 1 when one does, 2 when the audit could not run.
        """)

    @Option(help: "The relying party's sign-in start URL (the link behind its Sign in with Apple button).")
    var start: String?
    @Option(name: .customLong("signed-in"), help: "A page of the relying party that answers 2xx only to a signed-in session, showing the user.")
    var signedIn: String?
    @OptionGroup var scenario: ScenarioOption
    @Option(help: "Address the mock server listens on.") var host: String = "127.0.0.1"
    @Option(help: "Port the mock server listens on (the relying party is configured with it).") var port: Int = 8080
    @Option(help: "The persona who signs in.") var persona: String = "jane"
    @Option(help: "Cases to run: ids or prefixes ending in * (id_token.*,callback.replay). Default: all.") var cases: String?
    @Option(help: "Output: table or json.") var format: OutputFormat = .table
    @Option(help: "Also write a JUnit XML report to this file.") var junit: String?
    @Option(help: "The relying party's iOS backend: where its app posts the identity token (audits the native.* cases).")
    var native: String?
    @Option(name: .customLong("native-body"),
            help: "What the app posts: JSON when it starts with {, a form otherwise, with \(NativeBackend.placeholders.joined(separator: ", ")).")
    var nativeBody: String = NativeBackend.defaultBody
    @Flag(name: .customLong("native-nonce-sha256"), help: "The app passes the SHA-256 (hex) of its raw nonce to Apple; {nonce} is the raw one.")
    var nativeNonceSHA256 = false
    @Option(name: .customLong("bundle-id"), help: "The app's bundle ID (default: the first of the web client's team).") var bundleID: String?
    @Option(help: "The relying party's server-to-server notification endpoint (audits the notifications.* cases).")
    var notifications: String?
    @Flag(name: .customLong("list-cases"), help: "List the cases with what each expects (a Markdown table), and exit.") var listCases = false

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case table, json }

    func run() async throws {
        if listCases { print(AuditCaseList.text, terminator: ""); return }
        let configuration: AuditConfiguration
        let loaded: Scenario
        do {
            configuration = try makeConfiguration()
            loaded = try scenario.load()
        } catch {
            Self.fail("\(error)")
        }
        let showsProgress = isatty(STDERR_FILENO) != 0
        let progress: @Sendable (String) -> Void = { line in
            if showsProgress { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        let outcome: Result<AuditReport, AuditFailure>
        do {
            outcome = try await MockAppleIDTestServer.withRunning(scenario: loaded, host: host, port: port) { server in
                do throws(AuditFailure) { return .success(try await server.audit(configuration, progress: progress)) } catch { return .failure(error) }
            }
        } catch {
            Self.fail("could not start the mock server on \(host):\(port): \(error)")
        }
        switch outcome {
        case let .failure(failure): Self.fail(failure.description)
        case let .success(report):
            print(format == .json ? report.json : report.table, terminator: "")
            if let junit {
                do { try Data(report.junit.utf8).write(to: URL(fileURLWithPath: junit)) } catch { Self.fail("cannot write \(junit): \(error)") }
            }
            if report.hasFailures { throw ExitCode(1) }
        }
    }

    private func makeConfiguration() throws -> AuditConfiguration {
        guard let start, let startURL = URL(string: start) else { throw CommandError("--start URL is required") }
        guard let signedIn, let signedInURL = URL(string: signedIn) else { throw CommandError("--signed-in URL is required") }
        var selected = AuditCase.allCases
        if let cases {
            let patterns = cases.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            let chosen = AuditCase.selected(by: patterns)
            guard chosen.unmatched.isEmpty else {
                throw CommandError("no case matches \(chosen.unmatched.joined(separator: ", ")) (mock-appleid audit --list-cases lists them)")
            }
            selected = chosen.cases
        }
        var backend: NativeBackend?
        if let native {
            guard let url = URL(string: native) else { throw CommandError("--native must be a URL") }
            backend = NativeBackend(url: url, bodyTemplate: nativeBody, hashesNonce: nativeNonceSHA256, bundleID: bundleID)
        }
        var notificationsURL: URL?
        if let notifications {
            guard let url = URL(string: notifications) else { throw CommandError("--notifications must be a URL") }
            notificationsURL = url
        }
        return AuditConfiguration(startURL: startURL, signedInURL: signedInURL, persona: persona, cases: selected,
                                  native: backend, notificationsURL: notificationsURL)
    }

    /// Says why the audit could not run and exits with status 2.
    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        Foundation.exit(2)
    }
}

/// The cases as `audit --list-cases` prints them: a Markdown table (docs/audit.md carries it).
enum AuditCaseList {
    static var text: String {
        var lines = ["| Case | Apple's side | The relying party | Reference |", "|---|---|---|---|"]
        for auditCase in AuditCase.allCases {
            let rule = auditCase.rule
            let must: String
            switch rule.expectation {
            case .accept: must = "must accept"
            case .refuse: must = rule.missIsWarning ? "should refuse" : "must refuse"
            case .acceptOrRefuse: must = "may accept or refuse"
            case .ignore: must = "must ignore it"
            case .act: must = "should act on it"
            }
            lines.append("| `\(auditCase.id)` | \(rule.appleSide) | \(must): \(rule.rpMust) | \(rule.reference) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
