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
    private var deadline: Scheduled<Void>?

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
        deadline?.cancel()
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
        deadline?.cancel()
        deadline = nil
    }

    private func arm(_ seconds: Int) {
        deadline?.cancel()
        let channel = self.channel
        deadline = channel.eventLoop.scheduleTask(in: .seconds(Int64(seconds))) { channel.close(promise: nil) }
    }
}
