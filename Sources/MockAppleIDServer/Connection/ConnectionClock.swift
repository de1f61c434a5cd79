import NIOCore

/// The deadline of one HTTP connection, moved along as its requests are read and answered: the
/// idle timeout while it waits for a request, the header timeout from a request's first byte, the
/// body timeout from the end of its headers, and none while the server is answering. When a
/// deadline passes the connection is closed. Used on the connection's event loop only.
final class ConnectionClock {
    private enum Phase { case idle, readingHead, readingBody, answering }

    private let limits: ConnectionLimits
    private let channel: any Channel
    private var phase = Phase.idle
    /// Requests read in full whose answers have not ended yet.
    private var unanswered = 0
    /// When the connection is closed unless it makes progress; nil while the server is answering.
    private var deadline: NIODeadline?
    /// The one timer that checks ``deadline``, and when it fires. Moving the deadline later leaves it
    /// alone (it re-arms itself when it finds the deadline moved), so a busy keep-alive connection
    /// schedules almost no timers.
    private var check: (task: Scheduled<Void>, at: NIODeadline)?
    private var isClosed = false

    init(limits: ConnectionLimits, channel: any Channel) {
        self.limits = limits
        self.channel = channel
    }

    /// The connection opened: it waits for its first request.
    func opened() { arm(limits.idleTimeout) }

    /// Bytes arrived: when nothing was being read, a request has begun.
    func bytesArrived() {
        guard phase == .idle else { return }
        phase = .readingHead
        arm(limits.headerTimeout)
    }

    /// A request's headers are complete; its body follows.
    func headRead() {
        phase = .readingBody
        arm(limits.bodyTimeout)
    }

    /// A request has been read to its end; the server answers it.
    func requestRead() {
        unanswered += 1
        phase = .answering
        deadline = nil
    }

    /// Whether the request being read has not reached its end yet.
    var isReadingBody: Bool { phase == .readingBody }

    /// An answer ended; with nothing else to answer the connection waits for the next request.
    func answerEnded() {
        unanswered = max(0, unanswered - 1)
        guard unanswered == 0, phase == .answering else { return }
        phase = .idle
        arm(limits.idleTimeout)
    }

    /// The connection closed.
    func closed() {
        isClosed = true
        check?.task.cancel()
        check = nil
        deadline = nil
    }

    private func arm(_ seconds: Int) {
        guard !isClosed else { return }
        let due = NIODeadline.now() + .seconds(Int64(seconds))
        deadline = due
        if let check, check.at <= due { return }
        schedule(at: due)
    }

    private func schedule(at due: NIODeadline) {
        check?.task.cancel()
        let clock = NIOLoopBound(self, eventLoop: channel.eventLoop)
        let task = channel.eventLoop.scheduleTask(deadline: due) { clock.value.fire() }
        check = (task, due)
    }

    private func fire() {
        check = nil
        guard let deadline else { return }
        if deadline <= NIODeadline.now() {
            channel.close(promise: nil)
        } else {
            schedule(at: deadline)
        }
    }
}
