import Foundation
@testable import MockAppleID
import Synchronization
import Testing

/// One world: typed events for every change, the journal as their reader, atomic reset, snapshots.
@Suite("world and events")
struct WorldTests {
    @Test("a sign-in through the Swift API emits typed events and appears in the journal like any other")
    func eventsAndJournal() throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("jane")["code"]!
        _ = try provider.exchange(code).get()
        let events = provider.world.events.events().map(\.event)
        #expect(events.contains(.signInApproved(personaID: "jane", clientID: Fixtures.webClient, firstConsent: true, native: false)))
        #expect(events.contains(.codeRedeemed(personaID: "jane", clientID: Fixtures.webClient)))
        let journal = provider.journal.entries()
        #expect(journal.map(\.endpoint) == ["/auth/authorize", "/auth/token"])
        #expect(journal.allSatisfy { $0.via == .swift && $0.status == 200 && $0.time == Fixtures.start })
        #expect(journal[0].reason.contains("first sign-in of persona jane"))
    }

    @Test("a subscriber sees each event once, in order")
    func subscribe() async throws {
        let provider = try Fixtures.provider()
        let stream = provider.world.events.subscribe()
        try provider.createPersona(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: "kim@example.com"))
        try provider.deleteAccount(personaID: "kim")
        var received: [DomainEvent] = []
        for await recorded in stream {
            received.append(recorded.event)
            if received.count == 2 { break }
        }
        #expect(received == [.personaCreated(personaID: "kim"), .accountDeleted(personaID: "kim")])
    }

    /// A flag tasks share.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    @Test("readers cancelled while events are being appended never deadlock the log")
    func cancelledReaders() async {
        let log = EventLog(capacity: 100)
        let done = Flag()
        let writerEnded = DispatchSemaphore(value: 0)
        // The writer and the cancelling run on threads of their own, so that a deadlock between them
        // leaves the concurrency pool free for this test to notice it.
        Thread.detachNewThread {
            var index = 0
            while !done.isSet {
                log.append([.personaCreated(personaID: "p\(index % 10)")], at: Fixtures.start)
                index += 1
            }
            writerEnded.signal()
        }
        let readersEnded = Flag()
        Thread.detachNewThread {
            for _ in 0..<500 {
                let stream = log.subscribe(bufferLimit: 1)
                let ended = DispatchSemaphore(value: 0)
                let reader = Task {
                    for await _ in stream {}
                    ended.signal()
                }
                reader.cancel()
                ended.wait()
            }
            readersEnded.set()
        }
        // Polled with a deadline: a deadlock leaves those threads stuck for ever.
        let deadline = ContinuousClock.now + .seconds(60)
        while !readersEnded.isSet, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(readersEnded.isSet, "the readers did not finish: the log deadlocked")
        done.set()
        if readersEnded.isSet { writerEnded.wait() }
    }

    @Test("the event log is bounded and pages by sequence number")
    func bounded() {
        let log = EventLog(capacity: 3)
        for index in 0..<5 { log.append([.personaCreated(personaID: "p\(index)")], at: Fixtures.start) }
        #expect(log.events().map(\.sequence) == [3, 4, 5])
        #expect(log.events(after: 4).map(\.sequence) == [5])
        #expect(log.events(after: 99).isEmpty)
        #expect(log.events(after: Int.max).isEmpty)
    }

    @Test("reset is one step: personas, consents, keys, faults, clock and events back to the start")
    func reset() throws {
        let provider = try Fixtures.provider()
        _ = try provider.signIn("jane")
        try provider.createPersona(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: nil))
        try provider.queueFault(Fault(.idToken(.expired)))
        try provider.changeKeys(.activate(kid: "mRS1a8XkPq"))
        try provider.advanceClock(by: 500)
        provider.reset()
        #expect(provider.persona("kim") == nil)
        #expect(provider.consent(personaID: "jane", clientID: Fixtures.webClient) == nil)
        #expect(provider.faults().isEmpty)
        #expect(provider.keyRing().activeKID == "mRS2bT4nWz")
        #expect(provider.clock.now == Fixtures.start)
        #expect(provider.world.events.events().map(\.event) == [.worldReset])
    }

    @Test("a JSON snapshot restores consents, refresh tokens, personas, keys and the clock into a fresh provider")
    func snapshot() throws {
        let provider = try Fixtures.provider()
        let code = try provider.signIn("john")["code"]!
        let refresh = try provider.exchange(code).get()["refresh_token"]!.stringValue!
        try provider.createPersona(Persona(id: "kim", firstName: "Kim", lastName: "Lee", email: "kim@example.com"))
        try provider.changeKeys(.activate(kid: "mRS3cY7jLd"))
        try provider.advanceClock(by: 120)
        let data = try JSONEncoder().encode(provider.snapshot())

        let restored = try Fixtures.provider()
        restored.restore(try JSONDecoder().decode(WorldSnapshot.self, from: data))
        #expect(restored.persona("kim") != nil)
        #expect(restored.consent(personaID: "john", clientID: Fixtures.webClient)?.emailChoice == .hide)
        #expect(restored.keyRing().activeKID == "mRS3cY7jLd")
        #expect(restored.clock.now == Fixtures.start.addingTimeInterval(120))
        let form = Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(at: restored.clock.now),
                                  "grant_type": "refresh_token", "refresh_token": refresh])
        let idToken = try restored.tokenResult(form).get()["id_token"]!.stringValue!
        #expect(try CompactJWS(compact: idToken).header["kid"] == .string("mRS3cY7jLd"))
    }

    @Test("a deleted account cannot sign in; re-creating the persona gives a new sub")
    func deletedAccount() throws {
        let provider = try Fixtures.provider()
        let before = provider.subject(personaID: "jane", clientID: Fixtures.webClient)
        let code = try provider.signIn("jane")["code"]!
        let refresh = try provider.exchange(code).get()["refresh_token"]!.stringValue!
        try provider.deleteAccount(personaID: "jane")
        #expect(provider.completeResult(Fixtures.authorizeParameters(), decision: .approve(personaID: "jane", emailChoice: nil, name: nil))
            .failure?.reason.contains("deleted") == true)
        let form = Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "grant_type": "refresh_token",
                                  "refresh_token": refresh])
        #expect(provider.tokenResult(form).failure?.code == .invalidGrant)
        try provider.createPersona(provider.persona("jane")!)
        #expect(provider.subject(personaID: "jane", clientID: Fixtures.webClient) != before)
        #expect(try provider.signIn("jane")["user"] != nil)
    }

    @Test("a scheduled key activation happens when the mock clock reaches it")
    func scheduledRotation() throws {
        let provider = try Fixtures.provider()
        provider.scheduleKeyChange(.activate(kid: "mRS3cY7jLd"), at: Fixtures.start.addingTimeInterval(3600))
        try provider.advanceClock(by: 3599)
        #expect(provider.keyRing().activeKID == "mRS2bT4nWz")
        try provider.advanceClock(by: 1)
        #expect(provider.keyRing().activeKID == "mRS3cY7jLd")
        #expect(provider.world.events.events().map(\.event).contains(.keyActivated(kid: "mRS3cY7jLd")))
    }
}
