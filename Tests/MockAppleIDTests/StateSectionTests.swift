import Foundation
@testable import MockAppleID
import Testing

@Suite("the state's sections: one table for snapshots, rows and change tracking")
struct StateSectionTests {
    private func tracked() throws -> WorldState {
        var state = try WorldState(scenario: Fixtures.scenario())
        state.setTracking(true)
        return state
    }

    @Test("every section name has one entry, in order, and no two read the same rows")
    func table() {
        #expect(WorldState.sections.map(\.name) == WorldState.CodingKeys.allCases)
        let rowNames = WorldState.sections.flatMap(\.rowNames)
        #expect(Set(rowNames).count == rowNames.count)
        #expect(Set(rowNames).isSuperset(of: ["relayMessages", "outboxDeliveries"]))
    }

    @Test("tracking starts with nothing changed; a change in place gives its section's row once; untracked changes give none")
    func wholeSections() throws {
        var state = try tracked()
        #expect(state.takeChanges().isEmpty)
        state.personas.append(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: nil))
        state.deletedAccounts.insert("kim")
        #expect(Set(state.takeChanges().map(\.section)) == ["personas", "deletedAccounts"])
        #expect(state.takeChanges().isEmpty)
        state.setTracking(false)
        state.personas.removeLast()
        state.setTracking(true)
        #expect(state.takeChanges().isEmpty)
    }

    @Test("a map's entry changed in place is saved once; a change through an absent key is not a change")
    func mapChangedInPlace() {
        var map = TrackedMap<String, [Int]>()
        map["a"] = [1]
        map.setTracking(true)
        map["a"]?.append(2)
        map["b", default: []].append(3)
        map["absent"]?.append(4)
        let changed = map.takeChangedKeys()
        #expect(changed.map(\.key).sorted() == ["a", "b"])
        #expect(changed.first { $0.key == "a" }?.value == [1, 2])
        #expect(map["absent"] == nil)
        map["a"]?.removeAll()
        map["a"] = nil
        #expect(map.takeChangedKeys().map(\.key) == ["a"])
        #expect(map.takeChangedKeys().isEmpty)
    }

    @Test("a snapshot leaves out an absent auto-approve and reads back to the same snapshot")
    func snapshot() throws {
        let state = try tracked()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(state)
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(Set(object.keys) == Set(WorldState.CodingKeys.allCases.map(\.rawValue)).subtracting(
            state.autoApprove == nil ? ["autoApprove"] : []))
        #expect(try encoder.encode(JSONDecoder().decode(WorldState.self, from: encoded)) == encoded)
    }

    @Test("every row of a state restores into a state with the same rows")
    func rowsRoundTrip() throws {
        var state = try tracked()
        state.personas.append(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: nil))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func stored(_ state: WorldState) throws -> [WorldRowChange] {
            try state.allRows().map { try $0.encoded(with: encoder) }.sorted { ($0.section, $0.key) < ($1.section, $1.key) }
        }
        let rows = try stored(state)
        var restored = try WorldState(scenario: Fixtures.scenario())
        try restored.restore(rows.map { WorldRow(section: $0.section, key: $0.key, value: $0.value ?? "null") }, decoder: JSONDecoder())
        #expect(try stored(restored) == rows)
        #expect(restored.persona("kim") != nil)
        #expect(throws: StateStoreError.self) {
            try restored.restore([WorldRow(section: "unknown", key: "", value: "{}")], decoder: JSONDecoder())
        }
    }
}
