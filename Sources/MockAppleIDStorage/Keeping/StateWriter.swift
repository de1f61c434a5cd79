import Foundation
import MockAppleID
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
    private typealias Queue = StateWriteQueue<CheckedContinuation<Void, Never>>

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
        queue.withLock { $0.enqueue(rows, replacingAll: replacingAll) }?.resume()
    }

    /// A request is under way that will call ``waitUntilSaved()`` before it answers.
    func requestStarted() { queue.withLock { $0.requestStarted() } }

    /// The request answered; rows it left (queued by others meanwhile) go to the writer task.
    func requestEnded() { queue.withLock { $0.requestEnded() }?.resume() }

    /// Returns once everything queued before the call is saved, writing it itself when no write is
    /// under way; throws the write's failure.
    func waitUntilSaved() async throws(StateStoreError) {
        var goal: Int?
        while true {
            switch queue.withLock({ $0.nextStep(goal: &goal, storeName: store.name) }) {
            case .done: return
            case let .failed(failure): throw failure
            case let .write(batch): await write(batch)
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    if !queue.withLock({ $0.park(continuation) }) { continuation.resume() }
                }
            }
        }
    }

    /// Writes what is queued now, then stops the writer task; throws when a write failed.
    func close() async throws(StateStoreError) {
        queue.withLock { $0.close() }?.resume()
        await task.withLock { $0 }?.value
        if let failure = queue.withLock({ $0.failure }) { throw failure }
    }

    /// Writes one batch, then wakes every waiter to look again (done, or the next to write).
    private func write(_ batch: Queue.Batch) async {
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
        let (waiters, writer) = queue.withLock { $0.written(batch, failure: failure) }
        for waiter in waiters { waiter.resume() }
        writer?.resume()
    }

    /// Writes what no request will, until closed with nothing left.
    private func run() async {
        while true {
            switch queue.withLock({ $0.writerStep() }) {
            case let .finish(waiters):
                // Waits for changes queued after close() now fail rather than wait for ever.
                for waiter in waiters { waiter.resume() }
                return
            case let .write(batch):
                await write(batch)
            case .sleep:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    if !queue.withLock({ $0.parkWriter(continuation) }) { continuation.resume() }
                }
            }
        }
    }
}
