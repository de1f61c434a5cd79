import MockAppleID
import Testing

@Suite("Apple-shaped identifiers")
struct AppleIdentifiersTests {
    @Test("opaque tokens are unique, Apple-shaped, and their letters range over a to z")
    func opaqueTokens() throws {
        let tokens = (0..<2000).map { _ in AppleIdentifiers.opaqueToken(prefix: "c") }
        #expect(Set(tokens).count == tokens.count)
        var letters: Set<Character> = []
        for token in tokens {
            let match = try #require(token.wholeMatch(of: /c([0-9a-f]{32})\.0\.([a-z]{4})\.([A-Za-z0-9_-]{22})/))
            letters.formUnion(match.output.2)
        }
        #expect(letters == Set("abcdefghijklmnopqrstuvwxyz"))
    }

    @Test("JWT ids are 16 random bytes in base64url")
    func jwtIDs() {
        let ids = (0..<500).map { _ in AppleIdentifiers.jwtID() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.wholeMatch(of: /[A-Za-z0-9_-]{22}/) != nil })
    }
}
