import ArgumentParser
import Foundation
import MockAppleID
import MockAppleIDServer

/// `mock-appleid scenario check FILE` and `mock-appleid scenario run FILE`.
struct ScenarioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario", abstract: "Work with scenario files.", subcommands: [Check.self, Run.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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
            abstract: "Start a server on the scenario, replay its timeline step by step and check each step's expectations; exits 1 when one fails.")

        @Argument(help: "The scenario file (with a timeline).") var file: String
        @Option(help: "Port for the server while the timeline runs; 0 picks a free one.") var port = 0

        func run() async throws {
            let scenario = try ScenarioFile.load(file)
            let provider: AppleIDProvider
            do { provider = try AppleIDProvider(scenario: scenario) } catch { throw CommandError(error.description) }
            guard !scenario.timeline.steps.isEmpty else { throw CommandError("\(file): the scenario has no timeline to run") }
            let (started, continuation) = AsyncStream.makeStream(of: RunningServer.self)
            let server = MockAppleIDServer(provider: provider, configuration: ServerConfiguration(port: port, logLevel: .error)) {
                continuation.yield($0)
            }
            let group = server.makeServiceGroup(handlesSignals: true)
            let failed = try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                guard let running = await started.first(where: { _ in true }) else { throw CommandError("the server did not start") }
                print("scenario \(scenario.name): \(scenario.timeline.steps.count) step(s), server on \(running.baseURL)")
                var failed = 0
                while let outcome = provider.timeline.step(provider) {
                    print(Self.line(outcome))
                    if !outcome.passed { failed += 1 }
                }
                print(failed == 0 ? "\(scenario.name): all steps passed" : "\(scenario.name): \(failed) step(s) failed")
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return failed
            }
            if failed > 0 { throw ExitCode(1) }
        }

        static func line(_ outcome: StepOutcome) -> String {
            var text = "  \(outcome.passed ? "ok  " : "FAIL") \(outcome.index + 1). \(outcome.summary)  [\(outcome.location)]"
            for failure in outcome.failures { text += "\n         ✗ \(failure)" }
            for note in outcome.notes { text += "\n         · \(note)" }
            return text
        }
    }
}

/// Loads and checks a scenario file for the CLI, turning every problem into one readable error.
enum ScenarioFile {
    static func load(_ path: String) throws -> Scenario {
        do {
            let scenario = try ScenarioLoader.load(contentsOf: URL(fileURLWithPath: path))
            _ = try AppleIDProvider(scenario: scenario)
            return scenario
        } catch let error as ScenarioError {
            print(error.description)
            throw ExitCode(1)
        } catch {
            print("\(path): \(error)")
            throw ExitCode(1)
        }
    }
}
