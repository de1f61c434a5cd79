/// The default scenario compiled into the binary (`Scenarios/default.yaml` and its keys), so that
/// `mock-appleid serve` works from anywhere with no files.
public enum BuiltInScenario {
    /// The name errors give the built-in scenario's text.
    public static let fileName = "built-in Scenarios/default.yaml"

    /// Parses the built-in default scenario.
    public static func load() throws(ScenarioError) -> Scenario {
        try ScenarioLoader.load(yaml: yaml, file: fileName, resources: EmbeddedResources(files: files))
    }

    /// A shipped key file by name, e.g. `AuthKey_MOCKKEY001.p8` (the relying party's developer key).
    public static func keyFile(named name: String) -> String? { files["../Keys/" + name] }

    /// Team, key id and `.p8` text of the developer key relying parties use with the default scenario.
    public static let developerKey = (teamID: "MOCKTEAM01", keyID: "MOCKKEY001", fileName: "AuthKey_MOCKKEY001.p8")
}
