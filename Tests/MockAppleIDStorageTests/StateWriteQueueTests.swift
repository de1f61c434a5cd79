@testable import MockAppleID
@testable import MockAppleIDStorage
import Testing

/// The state file writer's state machine on its own: waiters are numbers, nothing is written.
@Suite("state file writer's queue")
struct StateWriteQueueTests {
    private typealias Queue = StateWriteQueue<Int>

    private static func row(_ name: String) -> PendingRow {
        PendingRow(section: "test", key: name, value: name, removed: false)
    }

    private static func batch(_ step: Queue.WaitStep) -> Queue.Batch? {
        if case let .write(batch) = step { return batch }
        return nil
    }

    @Test("a request writes its own change: the sleeping writer task is not woken while a request is under way")
    func requestWritesItself() throws {
        var queue = Queue()
        let answer1 = queue.parkWriter(1)
        #expect(answer1)
        queue.requestStarted()
        let answer2 = queue.enqueue([Self.row("a")], replacingAll: false)
        #expect(answer2 == nil)
        var goal: Int?
        let batch = try #require(Self.batch(queue.nextStep(goal: &goal, storeName: "file")))
        #expect(goal == 1 && batch.number == 1 && batch.rows.count == 1 && queue.writing)
        let woken = queue.written(batch, failure: nil)
        #expect(woken.waiters.isEmpty && woken.writer == nil && queue.saved == 1)
        guard case .done = queue.nextStep(goal: &goal, storeName: "file") else { Issue.record("not saved"); return }
        // The request ends with nothing left: the writer task stays asleep.
        let answer3 = queue.requestEnded()
        #expect(answer3 == nil)
    }

    @Test("with no request under way, a change wakes the writer task, which writes it")
    func writerWrites() throws {
        var queue = Queue()
        let answer4 = queue.parkWriter(7)
        #expect(answer4)
        let answer5 = queue.enqueue([Self.row("a")], replacingAll: false)
        #expect(answer5 == 7)
        guard case let .write(batch) = queue.writerStep() else { Issue.record("no batch for the writer"); return }
        #expect(batch.number == 1)
        guard case .sleep = queue.writerStep() else { Issue.record("a second batch while writing"); return }
        _ = queue.written(batch, failure: nil)
        #expect(queue.saved == 1)
    }

    @Test("a request that finds a write under way waits for it and is woken with the others when it ends")
    func waitsForTheWriteUnderWay() throws {
        var queue = Queue()
        queue.requestStarted()
        queue.requestStarted()
        _ = queue.enqueue([Self.row("a")], replacingAll: false)
        var first: Int?
        let batch = try #require(Self.batch(queue.nextStep(goal: &first, storeName: "file")))
        _ = queue.enqueue([Self.row("b")], replacingAll: false)
        var second: Int?
        guard case .wait = queue.nextStep(goal: &second, storeName: "file") else { Issue.record("no wait"); return }
        let answer6 = queue.park(2)
        #expect(answer6)
        let answer7 = queue.written(batch, failure: nil)
        #expect(answer7.waiters == [2])
        // The second change is the second request's to write now.
        let next = try #require(Self.batch(queue.nextStep(goal: &second, storeName: "file")))
        #expect(next.number == 2 && next.rows.count == 1)
    }

    @Test("a failed write fails every wait after it, and nothing more is kept")
    func failure() throws {
        var queue = Queue()
        queue.requestStarted()
        _ = queue.enqueue([Self.row("a")], replacingAll: false)
        var goal: Int?
        let batch = try #require(Self.batch(queue.nextStep(goal: &goal, storeName: "file")))
        _ = queue.written(batch, failure: StateStoreError("disk full"))
        guard case let .failed(error) = queue.nextStep(goal: &goal, storeName: "file") else { Issue.record("no failure"); return }
        #expect(error.message == "disk full")
        _ = queue.enqueue([Self.row("b")], replacingAll: false)
        #expect(queue.rows.isEmpty && queue.queued == 2)
        let parked = queue.park(3)
        #expect(!parked)
    }

    @Test("replacing everything drops the rows queued before")
    func replacing() throws {
        var queue = Queue()
        queue.requestStarted()
        _ = queue.enqueue([Self.row("a"), Self.row("b")], replacingAll: false)
        _ = queue.enqueue([Self.row("c")], replacingAll: true)
        var goal: Int?
        let batch = try #require(Self.batch(queue.nextStep(goal: &goal, storeName: "file")))
        #expect(batch.replacingAll && batch.rows.count == 1 && batch.number == 2)
    }

    @Test("closing writes what is queued, then the writer finishes and a later change's wait fails")
    func closing() throws {
        var queue = Queue()
        let answer8 = queue.parkWriter(1)
        #expect(answer8)
        queue.requestStarted()
        _ = queue.enqueue([Self.row("a")], replacingAll: false)
        let answer9 = queue.close()
        #expect(answer9 == 1)
        guard case let .write(batch) = queue.writerStep() else { Issue.record("nothing written at close"); return }
        var waiting: Int?
        guard case .wait = queue.nextStep(goal: &waiting, storeName: "file") else { Issue.record("no wait"); return }
        let answer10 = queue.park(5)
        #expect(answer10)
        _ = queue.written(batch, failure: nil)
        guard case let .finish(left) = queue.writerStep() else { Issue.record("the writer did not finish"); return }
        #expect(left.isEmpty && queue.closed)
        _ = queue.enqueue([Self.row("late")], replacingAll: false)
        var late: Int?
        guard case let .failed(error) = queue.nextStep(goal: &late, storeName: "file") else { Issue.record("a late change passed"); return }
        #expect(error.message.contains("no longer kept"))
    }
}
