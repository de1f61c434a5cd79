@testable import MockAppleIDServer
import Synchronization
import Testing

/// ``TenantTable``: the tenants and the names being made or removed, as a value driven without I/O.
@Suite("the tenant table")
struct TenantTableTests {
    @Test("one request at a time makes or removes a name; a name served, or one over capacity, is refused")
    func reserving() throws {
        var table = TenantTable<Int>(capacity: 2)
        try table.reserve("a", creating: true)
        #expect(throws: TenantError.busy("a")) { try table.reserve("a", creating: false) }
        try table.reserve("b", creating: true)
        // Two names being made fill a table of two.
        #expect(throws: TenantError.full(2)) { try table.reserve("c", creating: true) }
        table.insert(1, named: "a")
        #expect(table.release("a").isEmpty)
        #expect(throws: TenantError.exists("a")) { try table.reserve("a", creating: true) }
        // Removing is not creating: neither existence nor capacity is asked.
        try table.reserve("a", creating: false)
        #expect(table.remove("a") == 1 && table.remove("a") == nil)
        _ = table.release("a")
        _ = table.release("b")
        table.insert(2, named: "b")
        #expect(table.removeAll() == [2] && table.entries.isEmpty)
    }

    @Test("a request waiting for a name is woken when the name is released, and not made to wait for a free one",
          .timeLimit(.minutes(1)))
    func waiting() async {
        let table = Mutex(TenantTable<Int>(capacity: 10))
        await withCheckedContinuation { (free: CheckedContinuation<Void, Never>) in
            #expect(!table.withLock { $0.wait(for: "a", free) })
            free.resume()
        }
        try? table.withLock { (table: inout TenantTable<Int>) throws(TenantError) in try table.reserve("a", creating: true) }
        let (queued, queuedOne) = AsyncStream.makeStream(of: Void.self)
        let woken = Task {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                #expect(table.withLock { $0.wait(for: "a", waiter) })
                queuedOne.yield()
            }
            return true
        }
        for await _ in queued { break }
        let waiters = table.withLock { $0.release("a") }
        #expect(waiters.count == 1)
        for waiter in waiters { waiter.resume() }
        #expect(await woken.value)
    }

    @Test("a name looked up in vain is not looked up again within the interval; the memory of misses is bounded")
    func misses() {
        var table = TenantTable<Int>(capacity: 1)
        let now = ContinuousClock.now
        table.recordMiss("gone", at: now)
        #expect(table.missedRecently("gone", now: now + .milliseconds(500), within: .seconds(1)))
        #expect(!table.missedRecently("gone", now: now + .seconds(2), within: .seconds(1)))
        #expect(!table.missedRecently("other", now: now, within: .seconds(1)))
        for index in 0..<TenantTable<Int>.missesKept { table.recordMiss("name\(index)", at: now) }
        // The table was full: remembering one more forgot the others.
        #expect(!table.missedRecently("gone", now: now, within: .seconds(1)))
        #expect(table.missedRecently("name\(TenantTable<Int>.missesKept - 1)", now: now, within: .seconds(1)))
    }
}
