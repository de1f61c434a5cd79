import AsyncHTTPClient
import Foundation
import MockAppleID
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A `chromedriver` process of the audit's own, on a free loopback port, and one WebDriver session of headless
/// Chromium in it, spoken to over the W3C WebDriver protocol (with chromedriver's performance log and its door
/// to the DevTools protocol, `goog/cdp/execute`). ``quit()`` ends the session and the process.
final class ChromeDriver: Sendable {
    /// A WebDriver command's error: its `error` code (`no such element`, `timeout`) and message.
    struct CommandError: Error, Sendable, CustomStringConvertible {
        let code: String
        let message: String
        var description: String { "\(code): \(message.split(separator: "\n").first ?? "")" }
    }

    /// The most of a WebDriver answer read (a page's source, a performance log).
    static let answerLimit = 16 * 1024 * 1024

    /// The process groups (or processes) of the drivers running now, for ``endAll()``.
    private static let running = Mutex<Set<pid_t>>([])

    /// Kills every driver running now and the Chromium it started, at once: for a command interrupted by a signal,
    /// which exits without ending its audit.
    static func endAll() {
        for target in running.withLock({ $0 }) { kill(target, SIGKILL) }
    }

    private let process: Process
    /// The process group the driver leads (nil where it shares its parent's).
    private let group: pid_t?
    private let client: HTTPClient
    private let session: String

    private init(process: Process, group: pid_t?, client: HTTPClient, session: String) {
        self.process = process
        self.group = group
        self.client = client
        self.session = session
    }

    /// Starts `driver` (a path, else `chromedriver` on `PATH`) with a session of `chromium` (a path, else `chromium`
    /// on `PATH`) given `arguments`, logging the network for ``performanceLog()``.
    static func launch(driver: String?, chromium: String?, arguments: [String]) async throws(AuditFailure) -> ChromeDriver {
        let driverPath = try executable(driver, named: "chromedriver", option: "--chromedriver", package: "chromium-driver")
        let chromiumPath = try executable(chromium, named: "chromium", option: "--chromium", package: "chromium")
        let port = try await freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: driverPath)
        process.arguments = ["--port=\(port)", "--log-level=OFF"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw AuditFailure("could not start \(driverPath): \(error)") }
        let group: pid_t? = getpgid(process.processIdentifier) == process.processIdentifier ? process.processIdentifier : nil
        let target = group.map { -$0 } ?? process.processIdentifier
        running.withLock { _ = $0.insert(target) }
        let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                configuration: .init(timeout: .init(connect: .seconds(2), read: .seconds(90))))
        let base = "http://127.0.0.1:\(port)"
        do {
            try await waitUntilReady(base, client: client, process: process)
            let options: JSONValue = .object([
                ("binary", .string(chromiumPath)),
                ("args", .array((["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                                   "--disable-background-networking", "--disable-popup-blocking"] + arguments).map(JSONValue.string))),
                ("perfLoggingPrefs", .object([("enableNetwork", .bool(true)), ("enablePage", .bool(false))])),
            ])
            let capabilities: JSONValue = .object([("capabilities", .object([("alwaysMatch", .object([
                ("browserName", .string("chrome")), ("acceptInsecureCerts", .bool(true)),
                // A page's alert() is accepted, as a person would, rather than failing the next command.
                ("unhandledPromptBehavior", .string("accept")),
                ("goog:chromeOptions", options), ("goog:loggingPrefs", .object([("performance", .string("ALL")), ("browser", .string("SEVERE"))])),
            ]))]))])
            let answer = try await send(.POST, base + "/session", capabilities, client: client)
            guard let session = answer["sessionId"]?.stringValue else { throw CommandError(code: "session not created", message: "no session id") }
            return ChromeDriver(process: process, group: group, client: client, session: base + "/session/" + session)
        } catch {
            await end(process, group: group)
            try? await client.shutdown()
            throw AuditFailure("Chromium could not be started through \(driverPath): \(error)")
        }
    }

    /// Ends the browser's session (closing Chromium) and the driver, even when the audit's task was cancelled.
    func quit() async {
        await Task.detached { [self] in
            _ = try? await command(.DELETE, "")
            await Self.end(process, group: group)
            try? await client.shutdown()
        }.value
    }

    /// Ends `process` and, when it leads a process group of its own (Foundation starts it so on Linux), the whole group:
    /// the Chromium it started too, whatever state the driver is in. SIGTERM, then SIGKILL to whatever still runs two
    /// seconds later.
    private static func end(_ process: Process, group: pid_t?) async {
        func signal(_ number: Int32) {
            if let group { kill(-group, number) } else if process.isRunning { kill(process.processIdentifier, number) }
        }
        signal(SIGTERM)
        let deadline = ContinuousClock.now + .seconds(2)
        while process.isRunning, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { break }
        }
        signal(SIGKILL)
        running.withLock { _ = $0.remove(group.map { -$0 } ?? process.processIdentifier) }
    }

    /// Sends a command of the session (`path` after `/session/ID`) and returns its `value`.
    @discardableResult
    func command(_ method: HTTPMethod, _ path: String, _ body: JSONValue? = nil) async throws(CommandError) -> JSONValue {
        // A POST always has a body (`{}` when the command takes no parameters), as WebDriver requires.
        try await Self.send(method, session + path, body ?? (method == .POST ? .object([]) : nil), client: client)
    }

    /// Runs `script` in the current window's page with `arguments`, returning what it returns.
    @discardableResult
    func execute(_ script: String, _ arguments: [JSONValue] = []) async throws(CommandError) -> JSONValue {
        try await command(.POST, "/execute/sync", .object([("script", .string(script)), ("args", .array(arguments))]))
    }

    /// Runs a DevTools protocol command in the current window's page.
    @discardableResult
    func devTools(_ method: String, _ parameters: JSONValue = .object([])) async throws(CommandError) -> JSONValue {
        try await command(.POST, "/goog/cdp/execute", .object([("cmd", .string(method)), ("params", parameters)]))
    }

    /// The DevTools protocol's events logged since the last call (the network's, as `perfLoggingPrefs` asks), in order,
    /// of the window `window` (a window handle) only; every window's when it is nil.
    func performanceLog(of window: String? = nil) async throws(CommandError) -> [JSONValue] {
        let entries = try await command(.POST, "/se/log", .object([("type", .string("performance"))]))
        guard case let .array(items) = entries else { return [] }
        return items.compactMap { item -> JSONValue? in
            guard let entry = item["message"]?.stringValue.flatMap({ JSONValue.parse(Data($0.utf8), maxDepth: 64) }) else { return nil }
            // chromedriver names each event's window (its handle) as its `webview`.
            if let window, entry["webview"]?.stringValue != window { return nil }
            return entry["message"]
        }
    }

    private static func send(_ method: HTTPMethod, _ url: String, _ body: JSONValue?, client: HTTPClient) async throws(CommandError) -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body.serialized))
        }
        let data: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: .seconds(100))
            data = try await response.body.collect(upTo: answerLimit)
        } catch {
            throw CommandError(code: "no answer", message: "chromedriver did not answer: \(error)")
        }
        guard let answer = JSONValue.parse(Data(data.readableBytesView), maxDepth: 64) else {
            throw CommandError(code: "unreadable answer", message: String(buffer: data).prefix(200).description)
        }
        let value = answer["value"] ?? .null
        if let code = value["error"]?.stringValue { throw CommandError(code: code, message: value["message"]?.stringValue ?? "") }
        return value
    }

    /// Waits up to ten seconds for the driver's `/status` to say it is ready.
    private static func waitUntilReady(_ base: String, client: HTTPClient, process: Process) async throws(CommandError) {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw CommandError(code: "driver ended", message: "it exited with status \(process.terminationStatus)") }
            if let status = try? await send(.GET, base + "/status", nil, client: client), status["ready"]?.boolValue == true { return }
            do { try await Task.sleep(for: .milliseconds(50)) } catch { break }
        }
        throw CommandError(code: "driver not ready", message: "it did not answer within ten seconds")
    }

    /// A loopback port no one listens on now.
    private static func freePort() async throws(AuditFailure) -> Int {
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
            let port = channel.localAddress?.port
            try await channel.close()
            guard let port else { throw AuditFailure("no free port for chromedriver") }
            return port
        } catch let failure as AuditFailure { throw failure } catch {
            throw AuditFailure("no free port for chromedriver: \(error)")
        }
    }

    /// `given` when it is an executable file, else `name` found on `PATH`.
    private static func executable(_ given: String?, named name: String, option: String, package: String) throws(AuditFailure) -> String {
        let manager = FileManager.default
        if let given {
            guard manager.isExecutableFile(atPath: given) else { throw AuditFailure("\(option) \(given) is not an executable file") }
            return given
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where manager.isExecutableFile(atPath: "\(folder)/\(name)") { return "\(folder)/\(name)" }
        throw AuditFailure("--browser chromium needs \(name), which is not on PATH (on Debian: apt-get install \(package); or give \(option))")
    }
}
