import Foundation
@testable import MockAppleID
import Testing

/// App transfers in the core: who moves, `transfer_sub` in tokens for the 60-day window, the
/// migration answers in both directions, and scheduling on the mock clock.
@Suite("team transfer")
struct TransferTests {
    static let teamB = "OTHERTEAM1"

    @Test("a transfer moves the group's clients and its users' sub and relay address to the recipient team")
    func moves() throws {
        let provider = try Fixtures.provider()
        _ = try provider.signIn("john")
        let subA = try #require(provider.subject(personaID: "john", clientID: Fixtures.webClient))
        let relayA = try provider.relayAddress(personaID: "john", app: Fixtures.webClient)
        let transfer = try provider.transferApp(Fixtures.webClient, to: Self.teamB)
        #expect(transfer == AppTransfer(groupID: "com.example.app", fromTeam: "MOCKTEAM01", toTeam: Self.teamB, at: Fixtures.start, personas: ["john"]))
        #expect(provider.directory.client(Fixtures.webClient)?.teamID == Self.teamB && provider.directory.client("com.example.app")?.teamID == Self.teamB)
        #expect(provider.subject(personaID: "john", clientID: Fixtures.webClient) != subA)
        #expect(try provider.relayAddress(personaID: "john", app: Fixtures.webClient) != relayA)
        #expect(provider.relayAddresses().map(\.teamID) == [Self.teamB])
        #expect(throws: TransferError.sameTeam(Self.teamB)) { try provider.transferApp("com.example.app", to: Self.teamB) }
        #expect(throws: TransferError.unknownTeam("NOPE")) { try provider.transferApp("com.example.app", to: "NOPE") }
        #expect(throws: TransferError.unknownApp("com.nowhere")) { try provider.transferApp("com.nowhere", to: Self.teamB) }
    }

    @Test("identity tokens carry transfer_sub for 60 clock days after the transfer, for the users it moved")
    func window() throws {
        let provider = try Fixtures.provider()
        _ = try provider.signIn("john")
        try provider.transferApp("com.example.app", to: Self.teamB)
        let expected = AppleIdentifiers.transferSubject(teamID: Self.teamB, personaID: "john")
        #expect(try claims(of: try #require(provider.signIn("john")["id_token"]))["transfer_sub"] == .string(expected))
        #expect(try claims(of: try #require(provider.signIn("jane")["id_token"]))["transfer_sub"] == nil)  // signed in after it
        try provider.advanceClock(by: UserMigration.window - 1)
        #expect(try claims(of: try #require(provider.signIn("john")["id_token"]))["transfer_sub"] == .string(expected))
        try provider.advanceClock(by: 1)
        #expect(try claims(of: try #require(provider.signIn("john")["id_token"]))["transfer_sub"] == nil)
    }

    @Test("the transfer_sub is derived from the recipient team and the user: neither their sub nor the sending team's")
    func stableAcrossApps() throws {
        let provider = try Fixtures.provider()
        _ = try provider.signIn("john")
        let sub = try #require(provider.subject(personaID: "john", clientID: Fixtures.webClient))
        let state = provider.world.read { $0 }
        let first = try state.outgoingTransferSubject(sub: sub, teamID: "MOCKTEAM01", target: Self.teamB, at: Fixtures.start, afterTransfer: .answer)
        #expect(first == AppleIdentifiers.transferSubject(teamID: Self.teamB, personaID: "john"))
        #expect(first != AppleIdentifiers.transferSubject(teamID: "MOCKTEAM01", personaID: "john") && first != sub)
    }

    @Test("a scheduled transfer happens when the clock reaches it; one that cannot is logged as failed")
    func scheduled() throws {
        let provider = try Fixtures.provider()
        provider.scheduleTransfer("com.example.app", to: Self.teamB, at: Fixtures.start.addingTimeInterval(60))
        provider.scheduleTransfer("com.example.app", to: Self.teamB, at: Fixtures.start.addingTimeInterval(120))
        #expect(provider.transfers().isEmpty)
        try provider.advanceClock(by: 60)
        #expect(provider.transfers().map(\.toTeam) == [Self.teamB])
        try provider.advanceClock(by: 60)
        #expect(provider.world.events.events().contains {
            if case let .scheduledChangeFailed(label, _) = $0.event { label == "transfer com.example.app to team OTHERTEAM1" } else { false }
        })
    }

    @Test("a transfer scheduled for a time the clock has reached happens at once, even on a frozen clock")
    func scheduledInThePast() throws {
        let provider = try Fixtures.provider()
        provider.scheduleTransfer("com.example.app", to: Self.teamB, at: Fixtures.start.addingTimeInterval(-60))
        #expect(provider.transfers().map(\.toTeam) == [Self.teamB])
    }

    @Test("team tokens and the target team are matched byte for byte: U+212A KELVIN SIGN in place of K is another value")
    func byteExact() throws {
        let kelvin = "\u{212A}"
        #expect(kelvin == "K")
        var state = try Fixtures.provider().world.read { $0 }
        state.storeTeamToken("tK1", TeamAccessToken(teamID: "MOCKTEAM01", clientID: Fixtures.webClient, expiresAt: Fixtures.start + 3600),
                             now: Fixtures.start)
        #expect(state.teamToken("tK1", at: Fixtures.start) != nil)
        #expect(state.teamToken("t\(kelvin)1", at: Fixtures.start) == nil)

        let provider = try Fixtures.provider()
        _ = try provider.signIn("john")
        let sub = try #require(provider.subject(personaID: "john", clientID: Fixtures.webClient))
        let refused = #expect(throws: AppleError.self) {
            try provider.world.read { $0 }.outgoingTransferSubject(sub: sub, teamID: "MOCKTEAM01", target: "MOC\(kelvin)TEAM01", at: Fixtures.start, afterTransfer: .answer)
        }
        #expect(refused?.reason.hasSuffix("is not a registered team") == true)
    }

    @Test("transfers and team tokens are part of the world's snapshot")
    func snapshot() throws {
        let provider = try Fixtures.provider()
        _ = try provider.signIn("john")
        try provider.transferApp("com.example.app", to: Self.teamB)
        let data = try JSONEncoder().encode(provider.world.snapshot())
        let decoded = try JSONDecoder().decode(WorldSnapshot.self, from: data)
        #expect(decoded.state.transfers == provider.transfers())
        #expect(decoded.state.directory.client(Fixtures.webClient)?.teamID == Self.teamB)
    }
}
