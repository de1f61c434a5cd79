import Foundation
import MockAppleID
import Testing

/// ``AppleIDProvider/perform(_:_:)``: the one scoped call for a request's work, which journals an Apple-endpoint
/// request once it ends (what the provider decided, what the route noted, Apple's error, or the caller's failure).
@Suite("work done through perform")
struct PerformTests {
    struct Broken: Error {}

    static func apple(_ endpoint: AppleEndpoint) -> Work {
        .appleRequest(endpoint, origin: .http("POST")) { error in (error is Broken ? 502 : 500, "broken on purpose") }
    }

    @Test("an Apple-endpoint request is journaled once: decided, noted, refused or failed; other work is not")
    func journaled() async throws {
        let provider = try Fixtures.provider()
        let before = provider.journal.entries().count
        let noted = try await provider.perform(Self.apple(.keys)) { () async throws -> Int in
            provider.noteServed("served the keys for a test")
            return 7
        }
        #expect(try noted.get() == 7)
        let refused = try await provider.perform(Self.apple(.token)) { () async throws -> Int in
            provider.noteRequest(clientID: "com.example.web")
            throw AppleError(.invalidGrant, reason: "refused on purpose")
        }
        #expect(throws: AppleError.self) { try refused.get() }
        let failed = try await provider.perform(Self.apple(.revoke)) { () async throws -> Int in throw Broken() }
        #expect(throws: Broken.self) { try failed.get() }
        let admin = try await provider.perform(.request) { 3 }.get()
        #expect(admin == 3)
        let entries = provider.journal.entries().dropFirst(before).map(\.record)
        #expect(entries.map(\.endpoint) == ["/auth/keys", "/auth/token", "/auth/revoke"])
        #expect(entries.map(\.status) == [200, 400, 502])
        #expect(entries.map(\.reason) == ["served the keys for a test", "refused on purpose", "broken on purpose"])
        #expect(entries[1].clientID == "com.example.web" && entries[1].error == "invalid_grant")
    }

    @Test("what the provider decides inside the work is the entry, written when the work ends")
    func decidedInside() async throws {
        let provider = try Fixtures.provider()
        let before = provider.journal.entries().count
        _ = try await provider.perform(Self.apple(.token)) { () async throws -> Void in
            _ = try? provider.token(FormParameters(urlEncoded: "client_id=com.example.web&grant_type=authorization_code"),
                                    origin: .http("POST"))
            #expect(provider.journal.entries().count == before, "written before the work ended")
        }
        let entries = provider.journal.entries().dropFirst(before).map(\.record)
        #expect(entries.count == 1 && entries.first?.endpoint == "/auth/token" && entries.first?.status == 400)
    }

    @Test("afterSaved runs before the entry is written; refuse journals work that failed before it ran; a Work used twice makes two entries")
    func afterSavedAndRefused() async throws {
        let provider = try Fixtures.provider()
        let before = provider.journal.entries().count
        let work = Self.apple(.token)
        var counted = -1
        _ = try await provider.perform(work, afterSaved: { counted = provider.journal.entries().count }) { () async throws -> Void in
            provider.noteRequest(clientID: "first.client")
        }
        #expect(counted == before)
        _ = try await provider.perform(work) { () async throws -> Void in }
        provider.refuse(work, with: Broken())
        provider.refuse(.request, with: Broken())
        let entries = provider.journal.entries().dropFirst(before).map(\.record)
        #expect(entries.map(\.status) == [200, 200, 502])
        #expect(entries.map(\.clientID) == ["first.client", nil, nil])
    }
}
