import ArgumentParser
import Foundation
import MockAppleID
import MockAppleIDServer
import Synchronization

/// `mock-appleid scenario check FILE`, `mock-appleid scenario run FILE` and `mock-appleid scenario reference`.
struct ScenarioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario", abstract: "Work with scenario files.", subcommands: [Check.self, Run.self, Reference.self])

    struct Reference: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reference",
            abstract: "Print every key a scenario file may use, with its type, default and meaning (a Markdown table).")

        @Flag(help: "Print the timeline actions instead, with their keys and what each does.")
        var timelineActions = false

        func run() { print(timelineActions ? ScenarioSchema.timelineActionsTable : ScenarioSchema.referenceTable) }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Validate a scenario file; errors name the file, line and key path.")

        @Argument(help: "The scenario file.") var file: String

        func run() throws {
            let scenario = try ScenarioFile.load(file)
            let clients = scenario.groups.flatMap(\.clients).count
            print("\(file): ok (scenario \(scenario.name): \(scenario.teams.count) team(s), \(clients) client(s), \(scenario.personas.count) persona(s), \(scenario.signingKeys.count) signing key(s), \(scenario.timeline.steps.count) timeline step(s))")
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Replay a scenario's timeline step by step and check each step's expectations; exits 1 when one fails.",
            discussion: """
                Without --url, starts a server on the scenario for the run. With --url, drives the server already \
                running there through its admin API: the file's timeline is sent with the key files it names, and \
                its steps run against that server's apps and personas (the file's other sections are only checked).
                """)

        @Argument(help: "The scenario file (with a timeline).") var file: String
        @Option(help: "Port for the server started for the run; 0 picks a free one.") var port: Int?
        @Option(help: "Drive the server running at this base URL instead of starting one.") var url: String?
        @Flag(help: "With --url: reset that server to its scenario's initial state first.") var reset = false

        func validate() throws {
            if url != nil, port != nil { throw ValidationError("--port starts a server; --url drives a running one: give one of them") }
            if url == nil, reset { throw ValidationError("--reset applies to a running server (--url)") }
        }

        func run() async throws {
            let loaded = try ScenarioFile.read(file)
            guard !loaded.scenario.timeline.steps.isEmpty else { throw CommandError("\(file): the scenario has no timeline to run") }
            let outcomes = if let url {
                try await AdminClient.with(url: url, token: ProcessInfo.processInfo.environment["MOCK_APPLEID_ADMIN_TOKEN"]) { try await Self.drive($0, loaded, reset: reset) }
            } else {
                try await Self.runLocally(loaded.scenario, port: port ?? 0)
            }
            let failed = outcomes.filter { !$0.passed }.count
            print(failed == 0 ? "\(loaded.scenario.name): all steps passed" : "\(loaded.scenario.name): \(failed) step(s) failed")
            if failed > 0 { throw ExitCode(1) }
        }

        /// Starts a server on `scenario`, replays its timeline in process and stops the server.
        private static func runLocally(_ scenario: Scenario, port: Int) async throws -> [StepOutcome] {
            let provider: AppleIDProvider
            do { provider = try AppleIDProvider(scenario: scenario) } catch { throw CommandError(error.description) }
            let (started, continuation) = AsyncStream.makeStream(of: RunningServer.self)
            let server = MockAppleIDServer(provider: provider, configuration: ServerConfiguration(port: port, logLevel: .error)) {
                continuation.yield($0)
            }
            let group = server.makeServiceGroup(handlesSignals: true)
            return try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                guard let running = await started.first(where: { _ in true }) else { throw CommandError("the server did not start") }
                print("scenario \(scenario.name): \(scenario.timeline.steps.count) step(s), server on \(running.baseURL)")
                var outcomes: [StepOutcome] = []
                while let outcome = provider.timeline.step(provider) {
                    print(line(outcome))
                    outcomes.append(outcome)
                }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return outcomes
            }
        }

        /// Loads the file's timeline into the server at `client` and steps it through the admin API.
        private static func drive(_ client: AdminClient, _ loaded: ScenarioFile.Loaded, reset: Bool) async throws -> [StepOutcome] {
            let health = try client.decode(ServerHealth.self, try await client.get("health"), from: "health")
            if health.scenario != loaded.scenario.name {
                print("note: the server runs scenario \(health.scenario), not \(loaded.scenario.name): the steps use its apps, personas, settings and clock (serve --scenario FILE runs this file's)")
            }
            if reset { _ = try await client.post("reset") }
            let body = JSONValue.object([
                ("yaml", .string(loaded.text)), ("file", .string(loaded.path)),
                ("files", .object(loaded.keyFiles.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
            ])
            let progress = try client.decode(TimelineProgress.self, try await client.post("timeline", body), from: "timeline")
            print("scenario \(loaded.scenario.name): \(progress.steps) step(s), driving \(client.baseURL)")
            var outcomes: [StepOutcome] = []
            for _ in 0..<max(0, progress.steps) {
                let outcome = try client.decode(StepOutcome.self, try await client.post("timeline/step"), from: "timeline/step")
                print(line(outcome))
                outcomes.append(outcome)
            }
            return outcomes
        }

        static func line(_ outcome: StepOutcome) -> String {
            var text = "  \(outcome.passed ? "ok  " : "FAIL") \(outcome.index + 1). \(outcome.summary)  [\(outcome.location)]"
            for failure in outcome.failures { text += "\n         ✗ \(failure)" }
            for note in outcome.notes { text += "\n         · \(note)" }
            return text
        }
    }
}

/// The part of `GET /__admin/health` a command reads.
struct ServerHealth: Decodable {
    let scenario: String
}

/// The part of `GET`/`POST /__admin/timeline` a command reads.
struct TimelineProgress: Decodable {
    let steps: Int
    let done: Int
}

/// Loads and checks a scenario file for the CLI, turning every problem into one readable error.
enum ScenarioFile {
    /// A checked scenario file with its text and the key files it names (as written in it → their text).
    struct Loaded {
        let path: String
        let scenario: Scenario
        let text: String
        let keyFiles: [String: String]
    }

    static func load(_ path: String) throws -> Scenario { try read(path).scenario }

    /// Reads and checks the scenario at `path`, remembering the key files it read.
    static func read(_ path: String) throws -> Loaded {
        let url = URL(fileURLWithPath: path)
        do {
            let text = try ScenarioLoader.text(contentsOf: url)
            let resources = RecordingResources(DirectoryResources(baseDirectory: url.deletingLastPathComponent()))
            let scenario = try ScenarioLoader.load(yaml: text, file: url.path, resources: resources)
            _ = try AppleIDProvider(scenario: scenario)
            return Loaded(path: url.path, scenario: scenario, text: text, keyFiles: resources.files)
        } catch let error as ScenarioError {
            print(error.description)
            throw ExitCode(1)
        } catch {
            print("\(path): \(error)")
            throw ExitCode(1)
        }
    }
}

/// Key files read from disk, each remembered so that it can travel with the scenario text to a server.
final class RecordingResources: ScenarioResources {
    private let disk: DirectoryResources
    private let read = Mutex<[String: String]>([:])

    init(_ disk: DirectoryResources) { self.disk = disk }

    /// Every file read so far, by the path the scenario wrote.
    var files: [String: String] { read.withLock { $0 } }

    func text(at path: String) throws -> String {
        let text = try disk.text(at: path)
        read.withLock { $0[path] = text }
        return text
    }

    func location(of path: String) -> String { disk.location(of: path) }
}
