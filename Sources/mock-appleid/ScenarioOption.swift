import ArgumentParser
import Foundation
import MockAppleID

/// `--scenario FILE`, or the built-in default scenario.
struct ScenarioOption: ParsableArguments {
    @Option(name: .long, help: "Scenario file (YAML or JSON). Default: the built-in Scenarios/default.yaml.")
    var scenario: String?

    func load() throws -> Scenario {
        do {
            guard let path = scenario else { return try BuiltInScenario.load() }
            return try ScenarioLoader.load(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CommandError(error.description)
        }
    }
}
