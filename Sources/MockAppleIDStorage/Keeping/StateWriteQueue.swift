import MockAppleID

/// What a ``StateWriter`` knows: the rows queued and not yet written, how many changes are queued and
/// saved, whether a write is under way, the requests under way, and who waits. Its transitions return
/// what the writer must do next (write a batch, wake someone), so it is tested on its own with any
/// stand-in for the waiters, without a store or a task.
struct StateWriteQueue<Waiter> {
    /// Rows taken to be written as one atomic batch.
    struct Batch {
        let rows: [PendingRow]
        let replacingAll: Bool
        /// The last queued change it holds.
        let number: Int
    }

    /// What a request waiting for its changes does next.
    enum WaitStep {
        case done
        case write(Batch)
        case wait
        case failed(StateStoreError)
    }

    /// What the writer task does next.
    enum WriterStep {
        /// Closed with nothing left: wake these waiters (their waits now fail) and end.
        case finish([Waiter])
        case write(Batch)
        case sleep
    }

    private(set) var rows: [PendingRow] = []
    private var replacingAll = false
    /// Changes queued so far, and how many of them are saved.
    private(set) var queued = 0
    private(set) var saved = 0
    private(set) var failure: StateStoreError?
    /// A write is under way.
    private(set) var writing = false
    /// Requests under way, each of which waits for its changes (and so writes them) before answering.
    private(set) var requests = 0
    private var waiters: [Waiter] = []
    private var writerIdle: Waiter?
    private var closing = false
    /// What ``close()`` writes before the writer task ends: the changes queued when it was called.
    private var closeGoal = 0
    /// The writer task has ended: nothing more is written, and a wait for a later change fails.
    private(set) var closed = false

    /// Whether the writer task must look: rows nobody else will write, or closing.
    private var writerNeeded: Bool { closing || (queued > saved && !writing && requests == 0 && failure == nil) }

    /// Queues rows (`replacingAll` drops whatever is queued and makes the batch replace the whole store);
    /// returns the writer task to wake, if it must. After a failed write, or once closed, nothing more
    /// is kept: the count still goes up, so a wait for this change fails instead of passing.
    mutating func enqueue(_ newRows: [PendingRow], replacingAll replacing: Bool) -> Waiter? {
        queued += 1
        guard failure == nil, !closed else { return nil }
        if replacing {
            rows = newRows
            replacingAll = true
        } else {
            rows += newRows
        }
        return takeWriterIfNeeded()
    }

    mutating func requestStarted() { requests += 1 }

    /// A request answered; rows it left (queued by others meanwhile) go to the writer task, which is returned to wake.
    mutating func requestEnded() -> Waiter? {
        requests = max(0, requests - 1)
        return takeWriterIfNeeded()
    }

    /// The next step of a request waiting until change `goal` is saved (nil: what is queued now; the goal
    /// taken is returned, to be passed again).
    mutating func nextStep(goal: inout Int?, storeName: String) -> WaitStep {
        let target = goal ?? queued
        goal = target
        if let failure { return .failed(failure) }
        if saved >= target { return .done }
        if closed { return .failed(StateStoreError("\(storeName): the world is no longer kept there; a change was not saved")) }
        if let batch = takeBatch() { return .write(batch) }
        return .wait
    }

    /// A request waits for the write under way; false when it must not (none is, or it failed): look again.
    mutating func park(_ waiter: Waiter) -> Bool {
        guard writing, failure == nil else { return false }
        waiters.append(waiter)
        return true
    }

    /// A batch was written (or failed): every waiter looks again, and the writer task if it must.
    mutating func written(_ batch: Batch, failure writeFailure: StateStoreError?) -> (waiters: [Waiter], writer: Waiter?) {
        writing = false
        if let writeFailure { failure = writeFailure } else { saved = batch.number }
        defer { waiters = [] }
        return (waiters, takeWriterIfNeeded())
    }

    /// Closing: what is queued now is written, then the writer task ends; returns it to wake.
    mutating func close() -> Waiter? {
        closing = true
        closeGoal = queued
        return takeWriterIfNeeded()
    }

    /// The writer task's next step: write what no request will, finish once closed with nothing left.
    mutating func writerStep() -> WriterStep {
        if closing, !writing, saved >= closeGoal || failure != nil {
            closed = true
            defer { waiters = [] }
            return .finish(waiters)
        }
        if requests == 0 || closing, let batch = takeBatch() { return .write(batch) }
        return .sleep
    }

    /// The writer task sleeps until woken; false when it must look again at once.
    mutating func parkWriter(_ writer: Waiter) -> Bool {
        if writerNeeded && !writing { return false }
        writerIdle = writer
        return true
    }

    private mutating func takeBatch() -> Batch? {
        guard queued > saved, !writing, failure == nil, !closed else { return nil }
        writing = true
        defer {
            rows = []
            replacingAll = false
        }
        return Batch(rows: rows, replacingAll: replacingAll, number: queued)
    }

    private mutating func takeWriterIfNeeded() -> Waiter? {
        guard writerNeeded else { return nil }
        defer { writerIdle = nil }
        return writerIdle
    }
}
