/// Runs `work`, or gives up after `limit`: nil when the limit came first (the work is then cancelled).
/// Outbound calls (notifications, relay forwarding, the command line's admin calls) bound a whole exchange with it.
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
