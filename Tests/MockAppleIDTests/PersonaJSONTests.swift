import Foundation
import MockAppleID
import Testing

@Suite("a persona's JSON form")
struct PersonaJSONTests {
    @Test("it has exactly the members fieldNames lists (id, then each field) and reads back equal")
    func roundTrip() throws {
        let persona = Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: "kim@example.com", emailChoice: .hide,
                              realUserStatus: .unknown, managed: true, orgID: "org-1", emailVerified: false, relayForwarding: false)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(persona)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == Set(Persona.fieldNames))
        let read = try JSONDecoder().decode(Persona.self, from: data)
        #expect(try encoder.encode(read) == data)
        #expect(read == persona)
    }

    @Test("members left out take the scenario defaults")
    func defaults() throws {
        let read = try JSONDecoder().decode(Persona.self, from: Data(#"{"id": "ann"}"#.utf8))
        #expect(read.id == "ann" && read.firstName == "" && read.email == nil && read.emailChoice == .share)
        #expect(read.realUserStatus == .likelyReal && !read.managed && read.emailVerified && read.relayForwarding)
    }
}
