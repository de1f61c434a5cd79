import ArgumentParser
import Foundation
import MockAppleID
import MockAppleIDAudit
import MockAppleIDTesting
import MockAppleIDServer

/// `mock-appleid audit`: plays Apple's side of the tricky cases against a relying party the user runs
/// and owns, and reports case by case whether it did the right thing.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Test a relying party: play Apple's side of the tricky cases against it and report what it got wrong.",
        discussion: """
        Starts a mock server (the built-in scenario, or --scenario) on --host and --port, which the relying party \
        must be configured with, or uses the running server at --server; follows --start in a browser of its own, \
        answers as Apple would, and judges each case by the --signed-in page. Only for relying parties you own or are allowed to test. Exit status: 0 when \
        no case FAILs or is INCONCLUSIVE (or WARNs, with --fail-on warn) but those a --baseline accepts, 1 when one does, 2 when the audit could \
        not run (then --format json prints an object saying why, --json writes it, --junit writes one failing test saying why, and \
        --html a page saying why). A line per case goes to standard error as it runs.
        """)

    @Option(help: "The relying party's sign-in start URL (the link behind its Sign in with Apple button).")
    var start: String?
    @Option(name: .customLong("signed-in"), help: "A page of the relying party that answers 2xx only to a signed-in session, showing the user.")
    var signedIn: String?
    @OptionGroup var scenario: ScenarioOption
    @Option(help: "Address the mock server listens on (default: 127.0.0.1).") var host: String?
    @Option(help: "Port the mock server listens on, which the relying party is configured with (default: 8080).") var port: Int?
    @Option(help: "Audit through a running server instead (its base URL as the relying party reaches it, such as http://127.0.0.1:8080): its scenario and world are used, not --scenario.")
    var server: String?
    @Option(name: .customLong("apple-url"), help: "With --server: the server's base URL as the relying party uses it, when it is not --server's (https://appleid.apple.com for a relying party with Apple's URLs built in, led to the server by its host names).")
    var appleURL: String?
    @Option(name: .customLong("admin-token"), help: "The running server's admin token, with --server (default: $MOCK_APPLEID_ADMIN_TOKEN, else the file $MOCK_APPLEID_ADMIN_TOKEN_FILE names).")
    var adminToken: String?
    @Option(help: "The persona who signs in (default: jane).") var persona: String?
    @Option(help: "Cases to run: ids or prefixes ending in * (id_token.*,callback.replay). Default: all.") var cases: String?
    @Option(help: "Output: table or json.") var format: OutputFormat = .table
    @Option(help: "Also write the JSON report (what --format json prints) to this file.") var json: String?
    @Option(help: "Also write a JUnit XML report to this file.") var junit: String?
    @Option(help: "Also write an HTML report to this file: one page with the totals, the findings and every case's evidence.")
    var html: String?
    @Option(name: .customLong("fail-on"), help: "The least verdict that fails the audit (exit status 1): fail (FAIL and INCONCLUSIVE) or warn (WARN too).")
    var failOn: AuditGate.Threshold = .fail
    @Option(help: "An earlier audit's JSON report (--format json or --json): its findings are accepted, so only new or worse ones fail the audit.")
    var baseline: String?
    @Option(help: "The relying party's iOS backend: where its app posts the identity token (audits the native.* cases).")
    var native: String?
    @Option(name: .customLong("native-body"),
            help: "What the app posts: JSON when it starts with {, a form otherwise, with \(NativeBackend.placeholders.joined(separator: ", ")) (default: \(NativeBackend.defaultBody)).")
    var nativeBody: String?
    @Flag(name: .customLong("native-nonce-sha256"), help: "The app passes the SHA-256 (hex) of its raw nonce to Apple; {nonce} is the raw one.")
    var nativeNonceSHA256 = false
    @Option(name: .customLong("bundle-id"), help: "The app's bundle ID (default: the first of the web client's team).") var bundleID: String?
    @Option(help: "The relying party's server-to-server notification endpoint (audits the notifications.* cases).")
    var notifications: String?
    @Option(help: "A PEM file of certificate authorities to trust, besides the system's and the local CA's (`tls issue`), for a relying party served over https with a certificate of its own.")
    var ca: String?
    @Option(help: "The browser that drives the relying party: builtin (fast: follows links and redirects with Chromium's cookie rules) or chromium (a real headless Chromium through chromedriver: runs the relying party's JavaScript, clicks, follows popups).")
    var browser: BrowserKind = .builtin
    @Option(help: "With --browser chromium: a CSS selector of the element on the start page that begins sign-in (a button that posts a form or runs JavaScript).")
    var click: String?
    @Option(help: "With --browser chromium: the chromedriver executable (default: chromedriver on PATH).") var chromedriver: String?
    @Option(help: "With --browser chromium: the Chromium executable (default: chromium on PATH).") var chromium: String?
    @Flag(name: .customLong("list-cases"), help: "List the cases with what each expects (a Markdown table), and exit.") var listCases = false

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case table, json }
    enum BrowserKind: String, ExpressibleByArgument, CaseIterable { case builtin, chromium }

    func run() async throws {
        if listCases { print(AuditCaseList.text, terminator: ""); return }
        let gate = AuditGate(threshold: failOn, baseline: baselineFindings())
        let request = AuditRequest(start: start, signedIn: signedIn, persona: persona,
                                   cases: cases.map { $0.split(separator: ",").map(String.init) }, native: native, nativeBody: nativeBody,
                                   nativeNonceSHA256: nativeNonceSHA256, bundleID: bundleID, notifications: notifications,
                                   ca: ca.map { readBounded($0, what: "--ca", limit: AuditRequest.caLimit) })
        let signalHandlers = browser == .chromium ? Self.endBrowsersOnSignals() : []
        defer { withExtendedLifetime(signalHandlers) {} }
        var configuration: AuditConfiguration
        do { configuration = try request.configuration() } catch { fail(error.description) }
        if browser == .chromium {
            guard server == nil else {
                fail("--browser chromium drives a Chromium on this machine, and an audit through --server runs in the server: leave out --server")
            }
            configuration.chromium = ChromiumOptions(click: click, chromedriver: chromedriver, chromium: chromium)
        } else if click != nil || chromedriver != nil || chromium != nil {
            fail("--click, --chromedriver and --chromium go with --browser chromium")
        }
        // A line per case, terminal or not: a CI log is never silent for long.
        let progress: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line.terminalSafe + "\n").utf8)) }
        let outcome: Result<AuditReport, AuditFailure>
        if let server {
            outcome = try await audit(request, through: server, progress: progress)
        } else {
            if appleURL != nil || adminToken != nil {
                fail("--apple-url and --admin-token go with --server: a server the audit starts itself is reached at --host and --port")
            }
            outcome = try await audit(configuration, progress: progress)
        }
        switch outcome {
        case let .failure(failure): fail(failure.description)
        case let .success(report):
            // The files first: a file that cannot be written is said (exit 2) before anything is printed.
            for (path, text) in [(json, { report.json(gate: gate) }), (junit, { report.junit(gate: gate) }), (html, { report.html(gate: gate) })] {
                guard let path else { continue }
                // The reports already written stay as they are: the audit ran.
                do { try Data(text().utf8).write(to: URL(fileURLWithPath: path)) } catch { fail("cannot write \(path): \(error)", writingReports: false) }
            }
            print(format == .json ? report.json(gate: gate) : report.table(gate: gate), terminator: "")
            if !gate.failing(report).isEmpty { throw ExitCode(1) }
        }
    }

    /// An interrupted audit (Ctrl-C, a CI job's SIGTERM, a closed terminal) ends its Chromium and chromedriver before it
    /// exits: they run in a process group of their own, which the signal does not reach.
    /// Returns the handlers, which must be kept while the audit runs.
    private static func endBrowsersOnSignals() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                ChromiumProcesses.endAll()
                Foundation.exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    /// The most of a baseline file read: a report of every case with long evidence is far smaller.
    static let baselineLimit = 16 * 1024 * 1024

    /// The findings `--baseline` names (none without it).
    private func baselineFindings() -> [String: Verdict] {
        guard let baseline else { return [:] }
        let text = readBounded(baseline, what: "--baseline", limit: Self.baselineLimit)
        do { return try AuditGate.baseline(fromReport: Data(text.utf8)) } catch { fail("\(baseline): \(error.description)") }
    }

    /// The text of the file `path` an option names, at most `limit` bytes; the audit cannot run otherwise.
    private func readBounded(_ path: String, what option: String, limit: Int) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { fail("cannot read \(option) \(path)") }
        defer { try? handle.close() }
        let data = ((try? handle.read(upToCount: limit + 1)) ?? nil) ?? Data()
        guard data.count <= limit else { fail("\(option) \(path) is over \(limit / 1024) KB") }
        return String(decoding: data, as: UTF8.self)
    }

    /// The audit against a server of its own, started on the scenario, host and port given.
    private func audit(_ configuration: AuditConfiguration, progress: @escaping @Sendable (String) -> Void) async throws -> Result<AuditReport, AuditFailure> {
        var trusting = configuration
        // The local CA of `tls issue`, when this machine has one (through a running server, the server adds its own).
        do { trusting.localCertificateAuthority = try LocalCertificateAuthorityFiles.keptCertificate(in: TLSOptions.defaultDirectory) } catch {
            progress("note: \(error)")
        }
        let configuration = trusting
        let (host, port) = (host ?? "127.0.0.1", port ?? 8080)
        let loaded: Scenario
        do { loaded = try scenario.load() } catch { fail("\(error)") }
        do {
            return try await MockAppleIDTestServer.withRunning(scenario: loaded, host: host, port: port) { server in
                do throws(AuditFailure) { return .success(try await server.audit(configuration, progress: progress)) } catch { return .failure(error) }
            }
        } catch {
            fail("could not start the mock server on \(host):\(port): \(error)")
        }
    }

    /// The audit run by the server at `url` against its own world (`POST /__admin/audit`), its progress relayed.
    private func audit(_ request: AuditRequest, through url: String, progress: @escaping @Sendable (String) -> Void) async throws -> Result<AuditReport, AuditFailure> {
        guard scenario.scenario == nil, host == nil, port == nil else {
            fail("--server audits through a running server, whose scenario, host and port are its own: leave out --scenario, --host and --port")
        }
        if let appleURL {
            guard let parsed = URL(string: appleURL), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host?.isEmpty == false else {
                fail("--apple-url must be the server's base URL as the relying party uses it, such as https://appleid.apple.com; got \"\(appleURL)\"")
            }
        }
        let body = request.json.merged(with: .object([("server", .string(appleURL ?? url))]))
        var outcome: Result<AuditReport, AuditFailure>?
        do {
            try await AdminClient.with(url: url, token: try ServerURLOption.adminToken(given: adminToken), option: "--server") { client in
                try await client.postStreaming("audit", body) { line in
                    guard let object = JSONValue.parse(Data(line.utf8)) else { throw CommandError("the server's audit answer is not JSON: \(line.prefix(200))") }
                    if let text = object["progress"]?.stringValue { progress(text) }
                    if let text = object["failure"]?.stringValue { outcome = .failure(AuditFailure(text)) }
                    if let report = object["report"] {
                        do { outcome = .success(try JSONDecoder().decode(AuditReport.self, from: report.data)) } catch {
                            throw CommandError("the server's audit report cannot be read: \(error)")
                        }
                    }
                }
            }
        } catch {
            fail("\(error)")
        }
        guard let outcome else { fail("the server's audit answer ended without a report") }
        return outcome
    }

    /// Says why the audit could not run (on standard error; as one JSON object with `--format json` and in the `--json`
    /// file; as one failing test in the `--junit` file and a page in the `--html` file; no file when `writingReports` is
    /// false) and exits with status 2.
    private func fail(_ message: String, writingReports: Bool = true) -> Never {
        let failure = AuditFailure(message)
        FileHandle.standardError.write(Data("Error: \(message.terminalSafe)\n".utf8))
        if format == .json { print(failure.json(start: start, signedIn: signedIn), terminator: "") }
        if writingReports, let json { try? Data(failure.json(start: start, signedIn: signedIn).utf8).write(to: URL(fileURLWithPath: json)) }
        if writingReports, let junit { try? Data(failure.junit.utf8).write(to: URL(fileURLWithPath: junit)) }
        if writingReports, let html { try? Data(failure.html(start: start, signedIn: signedIn).utf8).write(to: URL(fileURLWithPath: html)) }
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
            case .ask: must = rule.missIsWarning ? "should ask" : "must ask"
            case .acknowledge: must = "must acknowledge it"
            }
            lines.append("| `\(auditCase.id)` | \(rule.appleSide) | \(must): \(rule.rpMust) | \(rule.reference) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension AuditGate.Threshold: ExpressibleByArgument {}
