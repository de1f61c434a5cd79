import Synchronization

/// Runs `work`, or gives up after `limit`: nil when the limit came first (the work is then cancelled).
/// Outbound calls (notifications, relay forwarding, the command line's admin calls) bound a whole exchange with it.
/// It returns once the work has ended too: work that cannot be interrupted wants ``abandoningAfter(_:_:)``.
public func withDeadline<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await work() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Runs `work` in a task of its own and returns its result, or nil once `limit` has passed, without waiting for it
/// then: what cannot be interrupted (a blocking name lookup on a thread pool) ends on its own, later.
public func abandoningAfter<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async -> T) async -> T? {
    let answer = FirstAnswer<T?>()
    return await withCheckedContinuation { continuation in
        answer.await(continuation)
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            answer.give(nil)
        }
        Task {
            answer.give(await work())
            timer.cancel()
        }
    }
}

/// A continuation resumed with the first answer given; later ones are dropped.
private final class FirstAnswer<T: Sendable>: Sendable {
    private let waiting = Mutex<CheckedContinuation<T, Never>?>(nil)

    func await(_ continuation: CheckedContinuation<T, Never>) { waiting.withLock { $0 = continuation } }

    func give(_ value: T) {
        let continuation = waiting.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }
        continuation?.resume(returning: value)
    }
}
