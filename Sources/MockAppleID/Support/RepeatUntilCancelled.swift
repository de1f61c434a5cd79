/// Runs `body`, then sleeps for `pause`, over and over until the task is cancelled: the loop of a watcher
/// that looks again, or listens again, some time after each look or listen ended.
public func repeatUntilCancelled(pausing pause: Duration, _ body: () async -> Void) async {
    while !Task.isCancelled {
        await body()
        do { try await Task.sleep(for: pause) } catch { return }
    }
}
