import MockAppleID
import Testing

@Suite("the registered apps")
struct DirectoryTests {
    static let directory = Directory(
        teams: [],
        groups: [AppGroup(primaryAppID: "com.example.app", teamID: "TEAM1", bundleIDs: ["com.example.app.watch"],
                          servicesIDs: [ServicesID(id: "com.example.web", returnURLs: [])]),
                 AppGroup(primaryAppID: "org.other.app", teamID: "TEAM2", bundleIDs: [], servicesIDs: [])])

    @Test("an app is named by its primary App ID or any client of its group, byte for byte", arguments: [
        ("com.example.app", "com.example.app"), ("com.example.app.watch", "com.example.app"), ("com.example.web", "com.example.app"),
        ("org.other.app", "org.other.app"), ("com.example.APP", nil), ("com.example.web ", nil), ("", nil),
    ])
    func groupNamed(app: String, group: String?) {
        #expect(Self.directory.group(named: app)?.primaryAppID == group)
    }

    @Test("a canonically equivalent name is another name")
    func canonicalEquivalence() {
        let composed = Directory(teams: [], groups: [AppGroup(primaryAppID: "com.caf\u{E9}.app", teamID: "T", bundleIDs: [], servicesIDs: [])])
        #expect(composed.group(named: "com.caf\u{E9}.app") != nil)
        #expect(composed.group(named: "com.cafe\u{301}.app") == nil)
    }
}
