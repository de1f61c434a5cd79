import Foundation
import Synchronization

/// Writes a world's changes to its ``WorldStore`` in order, off the world's lock, and tells each
/// waiter when what it changed is saved.
///
/// Transitions queue their rows under the world's lock; one writer task takes everything queued
/// since its last write and writes it as one atomic batch (a group commit), so parallel requests
/// share a write. A request answers only after ``waitUntilSaved()``: what it acknowledged is kept
/// if the process dies a moment later. After a failed write the writer stops, and every wait throws
/// the failure: the state in memory is then ahead of the store, and saying otherwise would lose data.
final class StateWriter: Sendable {
    private struct Queue: Sendable {
        var rows: [PendingRow] = []
        var replacingAll = false
        /// Batches queued so far, and how many of them are saved.
        var queued = 0
        var saved = 0
        var failure: StateStoreError?
        var waiters: [(batch: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        var writerIdle: CheckedContinuation<Void, Never>?
        var closing = false
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
        let idle = queue.withLock { queue -> CheckedContinuation<Void, Never>? in
            // After a failed write nothing more is written; holding rows would only grow memory.
            guard queue.failure == nil else { return nil }
            if replacingAll {
                queue.rows = rows
                queue.replacingAll = true
            } else {
                queue.rows += rows
            }
            queue.queued += 1
            defer { queue.writerIdle = nil }
            return queue.writerIdle
        }
        idle?.resume()
    }

    /// Returns once everything queued before the call is saved; throws the write's failure.
    func waitUntilSaved() async throws(StateStoreError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = queue.withLock { queue -> Result<Void, StateStoreError>? in
                    if let failure = queue.failure { return .failure(failure) }
                    if queue.saved >= queue.queued { return .success(()) }
                    queue.waiters.append((queue.queued, continuation))
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } catch let error as StateStoreError {
            throw error
        } catch {
            throw StateStoreError("\(store.name): \(error)")
        }
    }

    /// Whether everything queued is saved (no need to wait).
    var isCaughtUp: Bool { queue.withLock { $0.saved >= $0.queued && $0.failure == nil } }

    /// Writes what is queued, then stops the writer; throws when a write failed.
    func close() async throws(StateStoreError) {
        let idle = queue.withLock { queue -> CheckedContinuation<Void, Never>? in
            queue.closing = true
            defer { queue.writerIdle = nil }
            return queue.writerIdle
        }
        idle?.resume()
        await task.withLock { $0 }?.value
        if let failure = queue.withLock({ $0.failure }) { throw failure }
    }

    private func run() async {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        while true {
            let next = await nextBatch()
            guard let (rows, replacingAll, batch) = next else { return }
            let outcome: Result<Void, StateStoreError>
            do throws(StateStoreError) {
                let changes: [WorldRowChange]
                do { changes = try Self.latestPerRow(rows).map { try $0.encoded(with: encoder) } } catch {
                    throw StateStoreError("\(store.name): a change could not be encoded: \(error)")
                }
                try await store.write(changes, replacingAll: replacingAll)
                outcome = .success(())
            } catch {
                outcome = .failure(error)
            }
            let finished = queue.withLock { queue in
                if case let .failure(error) = outcome { queue.failure = error } else { queue.saved = batch }
                let done = queue.failure != nil ? queue.waiters : queue.waiters.filter { $0.batch <= batch }
                queue.waiters.removeAll { queue.failure != nil || $0.batch <= batch }
                return done.map(\.continuation)
            }
            for continuation in finished { continuation.resume(with: outcome.mapError { $0 as any Error }) }
            if case .failure = outcome { return }
        }
    }

    /// Waits for rows (nil once closing with nothing left); takes everything queued.
    private func nextBatch() async -> (rows: [PendingRow], replacingAll: Bool, batch: Int)? {
        while true {
            let taken = queue.withLock { queue -> (rows: [PendingRow], replacingAll: Bool, batch: Int)?? in
                if queue.queued > queue.saved, queue.failure == nil {
                    defer {
                        queue.rows = []
                        queue.replacingAll = false
                    }
                    return (queue.rows, queue.replacingAll, queue.queued)
                }
                return queue.closing ? .some(nil) : nil
            }
            if let taken { return taken }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = queue.withLock { queue -> Bool in
                    if queue.queued > queue.saved || queue.closing { return true }
                    queue.writerIdle = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// Each row once, with its last change (several transitions in one batch may touch the same row).
    private static func latestPerRow(_ rows: [PendingRow]) -> [PendingRow] {
        guard rows.count > 1 else { return rows }
        var seen = Set<String>()
        var latest: [PendingRow] = []
        for row in rows.reversed() where seen.insert(row.identity).inserted { latest.append(row) }
        return latest.reversed()
    }
}

extension PendingRow {
    /// Identifies the row a change is for, within one batch.
    fileprivate var identity: String {
        switch key {
        case nil: return section
        case let text as String: return section + "\u{0}" + text
        case let key?: return section + "\u{0}" + String(describing: key)
        }
    }
}
