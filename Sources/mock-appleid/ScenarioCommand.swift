import ArgumentParser
import Foundation
import MockAppleID

/// `mock-appleid scenario check FILE`.
struct ScenarioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario", abstract: "Work with scenario files.", subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a scenario file; errors name the file, line and key path.")

        @Argument(help: "The scenario file.") var file: String

        func run() throws {
            do {
                let scenario = try ScenarioLoader.load(contentsOf: URL(fileURLWithPath: file))
                _ = try AppleIDProvider(scenario: scenario)
                let clients = scenario.groups.flatMap(\.clients).count
                print("\(file): ok (scenario \(scenario.name): \(scenario.teams.count) team(s), \(clients) client(s), \(scenario.personas.count) persona(s), \(scenario.signingKeys.count) signing key(s))")
            } catch let error as ScenarioError {
                print(error.description)
                throw ExitCode(1)
            } catch {
                print("\(file): \(error)")
                throw ExitCode(1)
            }
        }
    }
}
