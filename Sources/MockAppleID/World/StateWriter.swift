import Foundation
import Synchronization

/// Writes a world's changes to its ``WorldStore`` in order, off the world's lock, and tells each
/// waiter when what it changed is saved.
///
/// Transitions queue their rows under the world's lock. Whoever writes takes everything queued since
/// the last write and writes it as one atomic batch (a group commit), so parallel requests share a
/// write. A request answers only after ``waitUntilSaved()``; the waiting request itself writes when
/// no write is under way (no hand-off to another thread and back), and while any request is under way
/// (``requestStarted()``) the writer task sleeps: it writes only what no request will, such as work
/// scheduled on the clock. After a failed write nothing more is written, and every wait throws the
/// failure: the state in memory is then ahead of the store, and saying otherwise would lose data.
final class StateWriter: Sendable {
    private struct Batch: Sendable {
        let rows: [PendingRow]
        let replacingAll: Bool
        /// The last queued change it holds.
        let number: Int
    }

    private struct Queue: Sendable {
        var rows: [PendingRow] = []
        var replacingAll = false
        /// Changes queued so far, and how many of them are saved.
        var queued = 0
        var saved = 0
        var failure: StateStoreError?
        /// A write is under way.
        var writing = false
        /// Requests under way, each of which waits for its changes (and so writes them) before answering.
        var requests = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        var writerIdle: CheckedContinuation<Void, Never>?
        var closing = false
        /// What ``close()`` writes before the writer task ends: the changes queued when it was called.
        var closeGoal = 0
        /// The writer task has ended: nothing more is written, and a wait for a later change throws.
        var closed = false

        /// Whether the writer task must look: rows nobody else will write, or closing.
        var writerNeeded: Bool { closing || (queued > saved && !writing && requests == 0 && failure == nil) }

        mutating func takeBatch() -> Batch? {
            guard queued > saved, !writing, failure == nil, !closed else { return nil }
            writing = true
            defer {
                rows = []
                replacingAll = false
            }
            return Batch(rows: rows, replacingAll: replacingAll, number: queued)
        }

        /// The writer task's continuation, when it must wake.
        mutating func takeWriterIfNeeded() -> CheckedContinuation<Void, Never>? {
            guard writerNeeded else { return nil }
            defer { writerIdle = nil }
            return writerIdle
        }
    }

    let store: any WorldStore
    private let queue = Mutex(Queue())
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(store: any WorldStore) { self.store = store }

    /// Starts the writer task.
    func start() {
        task.withLock { $0 = Task { await self.run() } }
    }

    /// Queues rows; `replacingAll` drops whatever is queued and makes the batch replace the whole store.
    func enqueue(_ rows: [PendingRow], replacingAll: Bool = false) {
        guard !rows.isEmpty || replacingAll else { return }
        let writer = queue.withLock { queue -> CheckedContinuation<Void, Never>? in
            // After a failed write, or once closed, nothing more is written: holding rows would only
            // grow memory. The count still goes up, so a wait for this change fails instead of passing.
            guard queue.failure == nil, !queue.closed else {
                queue.queued += 1
                return nil
            }
            if replacingAll {
                queue.rows = rows
                queue.replacingAll = true
            } else {
                queue.rows += rows
            }
            queue.queued += 1
            return queue.takeWriterIfNeeded()
        }
        writer?.resume()
    }

    /// A request is under way that will call ``waitUntilSaved()`` before it answers.
    func requestStarted() { queue.withLock { $0.requests += 1 } }

    /// The request answered; rows it left (queued by others meanwhile) go to the writer task.
    func requestEnded() {
        queue.withLock { queue -> CheckedContinuation<Void, Never>? in
            queue.requests = max(0, queue.requests - 1)
            return queue.takeWriterIfNeeded()
        }?.resume()
    }

    /// Returns once everything queued before the call is saved, writing it itself when no write is
    /// under way; throws the write's failure.
    func waitUntilSaved() async throws(StateStoreError) {
        var goal: Int?
        while true {
            enum Step {
                case done, write(Batch), wait
                case failed(StateStoreError)
            }
            let step = queue.withLock { queue -> Step in
                let target = goal ?? queue.queued
                goal = target
                if let failure = queue.failure { return .failed(failure) }
                if queue.saved >= target { return .done }
                if queue.closed { return .failed(StateStoreError("\(store.name): the world is no longer kept there; a change was not saved")) }
                if let batch = queue.takeBatch() { return .write(batch) }
                return .wait
            }
            switch step {
            case .done: return
            case let .failed(failure): throw failure
            case let .write(batch): await write(batch)
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = queue.withLock { queue -> Bool in
                        guard queue.writing, queue.failure == nil else { return true }
                        queue.waiters.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// Writes what is queued now, then stops the writer task; throws when a write failed.
    func close() async throws(StateStoreError) {
        queue.withLock { queue -> CheckedContinuation<Void, Never>? in
            queue.closing = true
            queue.closeGoal = queue.queued
            return queue.takeWriterIfNeeded()
        }?.resume()
        await task.withLock { $0 }?.value
        if let failure = queue.withLock({ $0.failure }) { throw failure }
    }

    /// Writes one batch, then wakes every waiter to look again (done, or the next to write).
    private func write(_ batch: Batch) async {
        var failure: StateStoreError?
        do throws(StateStoreError) {
            let changes: [WorldRowChange]
            do { changes = try PendingRow.encodedLatest(batch.rows) } catch {
                throw StateStoreError("\(store.name): a change could not be encoded: \(error)")
            }
            try await store.write(changes, replacingAll: batch.replacingAll)
        } catch {
            failure = error
        }
        let (waiters, writer) = queue.withLock { queue in
            queue.writing = false
            if let failure { queue.failure = failure } else { queue.saved = batch.number }
            defer { queue.waiters = [] }
            return (queue.waiters, queue.takeWriterIfNeeded())
        }
        for waiter in waiters { waiter.resume() }
        writer?.resume()
    }

    /// Writes what no request will, until closed with nothing left.
    private func run() async {
        while true {
            let step = queue.withLock { queue -> (batch: Batch?, finished: Bool) in
                if queue.closing, !queue.writing, queue.saved >= queue.closeGoal || queue.failure != nil {
                    queue.closed = true
                    return (nil, true)
                }
                if queue.requests == 0 || queue.closing, let batch = queue.takeBatch() { return (batch, false) }
                return (nil, false)
            }
            if step.finished {
                // Waits for changes queued after close() now fail rather than wait for ever.
                for waiter in queue.withLock({ queue in defer { queue.waiters = [] }; return queue.waiters }) { waiter.resume() }
                return
            }
            if let batch = step.batch {
                await write(batch)
                continue
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wake = queue.withLock { queue -> Bool in
                    if queue.writerNeeded && !queue.writing { return true }
                    queue.writerIdle = continuation
                    return false
                }
                if wake { continuation.resume() }
            }
        }
    }
}

extension PendingRow {
    /// The rows of one batch as a store takes them: each row once, with its last change (several
    /// transitions in one batch may touch the same row).
    static func encodedLatest(_ rows: [PendingRow]) throws -> [WorldRowChange] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard rows.count > 1 else { return try rows.map { try $0.encoded(with: encoder) } }
        var seen = Set<Identity>()
        var latest: [PendingRow] = []
        for row in rows.reversed() where seen.insert(Identity(row)).inserted { latest.append(row) }
        return try latest.reversed().map { try $0.encoded(with: encoder) }
    }

    /// The row a change is for, within one batch: its section and key, compared as values (keys of
    /// one section all have one type).
    private struct Identity: Hashable {
        let section: String
        let key: AnyHashable?

        init(_ row: PendingRow) {
            section = row.section
            key = row.key.map { AnyHashable($0) }
        }
    }
}
