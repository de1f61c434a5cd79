import Foundation
import MockAppleID
import Testing

@Suite("JWS, JWKS and token hashes")
struct JOSETests {
    let key = try! SigningKey(kid: "mRS2bT4nWz", algorithm: .rs256, pem: Fixtures.file("Keys/signing-mRS2bT4nWz.pem"))

    @Test("a compact JWS over 8 KB is refused before it is split; JSON nested past the limit is not parsed")
    func boundedParsing() throws {
        let long = String(repeating: "a", count: CompactJWS.maxLength + 1)
        #expect(throws: CompactJWS.ParseError.tooLong(CompactJWS.maxLength + 1)) { try CompactJWS(compact: long) }
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(JSONValue.parse(Data(deep.utf8)) == nil)
        let limit = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(JSONValue.parse(Data(limit.utf8)) != nil)
        let bracketsInText = #"{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"[[[["}"#
        #expect(JSONValue.parse(Data(bracketsInText.utf8))?["a"] != nil)
        let nestedHeader = Base64URL.encode(Data((String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40)).utf8))
        #expect(throws: CompactJWS.ParseError.notJSONObject(part: "header")) { try CompactJWS(compact: nestedHeader + ".e30.c2ln") }
    }

    @Test("RS256 JWS matches openssl's signature byte for byte")
    func rs256KnownAnswer() throws {
        // openssl dgst -sha256 -sign Keys/signing-mRS2bT4nWz.pem over the signing input below.
        let expected = "eyJraWQiOiJtUlMyYlQ0bld6IiwiYWxnIjoiUlMyNTYifQ.eyJzdWIiOiJ0ZXN0In0."
            + "daV814aeuB_enqrX2peTISSt7eDdggkifvriOVhY7q9ywOg3WTYJH0VS98NbKakLUFj4_oTGfcYu39xynX3Kn2dxgma53Xm0Wn-4fzwWptLSHFk0oD8_"
            + "ixgrc6U77eZuLaz6YKDe5kZtAsSz5Pc3ih4Lr1oW-JT4KKQUJkGRsoUgICMmLjMbvyn2ZXAn_9RmfXmgysV8zlbYxvT6W4r7DYX8StXmsrE36ag1NQTMHeKSG"
            + "QBxiKpXldPmcDUs05iuWN2F9AyaNsW1VcHNMcfK7LEowYAfY4l_K8R8sjJdg9TArjssso13LaqydvXtIv4c9DK-suz0fAEsrvjtD6--LA"
        #expect(try JWS.sign(payload: .object([("sub", .string("test"))]), with: key) == expected)
    }

    @Test("header is exactly {\"kid\":…,\"alg\":\"RS256\"}: kid first, no typ")
    func headerShape() throws {
        let token = try JWS.sign(payload: .object([]), with: key)
        let header = Base64URL.decode(token.split(separator: ".")[0])!
        #expect(String(decoding: header, as: UTF8.self) == #"{"kid":"mRS2bT4nWz","alg":"RS256"}"#)
    }

    @Test("ES256 signing keys produce raw 64-byte signatures that verify")
    func es256() throws {
        let ecKey = try SigningKey(kid: "mES1dQ2vHr", algorithm: .es256, pem: Fixtures.file("Keys/signing-mES1dQ2vHr.pem"))
        let token = try JWS.sign(payload: .object([("a", .int(1))]), with: ecKey)
        let jws = try CompactJWS(compact: token)
        #expect(jws.signature.count == 64)
        #expect(ecKey.isValidSignature(jws.signature, for: jws.signingInput))
        #expect(!ecKey.isValidSignature(jws.signature, for: Data("other".utf8)))
    }

    @Test("JWK fields in Apple's order with the key's modulus")
    func jwk() throws {
        let first = try SigningKey(kid: "mRS1a8XkPq", algorithm: .rs256, pem: Fixtures.file("Keys/signing-mRS1a8XkPq.pem"))
        guard case let .object(members) = first.publicJWK else { Issue.record("not an object"); return }
        #expect(members.map(\.0) == ["kty", "kid", "use", "alg", "n", "e"])
        #expect(first.publicJWK["e"] == .string("AQAB"))
        // openssl rsa -noout -modulus: B51A47CEB21BA3F330E721141AD2AB21…
        let modulus = Base64URL.decode(first.publicJWK["n"]!.stringValue!)!
        #expect(modulus.count == 256)
        #expect(modulus.prefix(16).map { String(format: "%02X", $0) }.joined() == "B51A47CEB21BA3F330E721141AD2AB21")
    }

    @Test("at_hash of the OpenID Connect Core example token")
    func tokenHash() {
        #expect(TokenHash.of("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y") == "77QmUPtjPfzWtF2AnpK9RQ")
    }

    @Test("base64url refuses padding and the standard alphabet", arguments: ["YQ==", "a+b/", "a b"])
    func base64URLStrict(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test("compact JWS parsing refuses malformed tokens", arguments: [
        ("a.b", CompactJWS.ParseError.notThreeParts(2)),
        ("!!.e30.AA", .notBase64URL(part: "header")),
        ("e30.W10.AA", .notJSONObject(part: "payload")),
        ("bm90anNvbg.e30.AA", .notJSONObject(part: "header")),
    ])
    func parseErrors(_ input: String, _ expected: CompactJWS.ParseError) {
        #expect(throws: expected) { try CompactJWS(compact: input) }
    }

    @Test("JSON serialisation keeps order, leaves / unescaped and escapes control characters")
    func jsonSerialisation() {
        let value = JSONValue.object([("z", .string("https://a/b")), ("a", .string("q\"\n\u{01}")), ("n", .int(-3)), ("b", .bool(false))])
        #expect(value.serialized == #"{"z":"https://a/b","a":"q\"\n\u0001","n":-3,"b":false}"#)
        let parsed = JSONValue.parse(value.data)
        #expect(parsed?["z"] == .string("https://a/b"))
        #expect(parsed?["a"] == .string("q\"\n\u{01}"))
        #expect(parsed?["n"] == .int(-3))
        #expect(parsed?["b"] == .bool(false))
    }
}
