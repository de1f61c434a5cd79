import Logging
import MockAppleID
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Forwards each message the relay takes to an upstream SMTP server (a developer's mail catcher),
/// addressed to the persona's own address, as Apple forwards relay mail to the real inbox. A reader
/// of the event log; one attempt per message, whose outcome is kept on the message. At graceful shutdown
/// it takes no new message and lets the conversations under way end.
struct RelayForwarder: Service {
    let provider: AppleIDProvider
    let upstream: (host: String, port: Int)
    let logger: Logger

    /// How long one forwarding conversation may take.
    static let timeout: Duration = .seconds(30)

    func run() async {
        let delivered = provider.world.events.subscribe(bufferLimit: 1_000)
        await withDiscardingTaskGroup { group in
            for await recorded in delivered.cancelOnGracefulShutdown() {
                guard case let .relayMailDelivered(id, _, _, _) = recorded.event else { continue }
                group.addTask {
                    guard let message = provider.relayMessages().last(where: { $0.id == id }) else { return }
                    let outcome = await forward(message)
                    do throws(StateStoreError) {
                        try await provider.performSideJob { provider.recordRelayForwarding(id, outcome: outcome) }
                    } catch {
                        logger.error("relay message \(id): the forwarding's outcome was not saved: \(error.message)")
                    }
                    logger.info("relay message \(id) forwarded to \(upstream.host):\(upstream.port): \(outcome)")
                }
            }
        }
    }

    private func forward(_ message: RelayMessage) async -> String {
        guard let recipient = message.forwardTo else { return "not forwarded: the persona has no address of their own" }
        return await withDeadline(Self.timeout) {
            do { return try await converse(message, recipient: recipient) } catch { return "failed: \(error)" }
        } ?? "failed: no answer within \(Self.timeout)"
    }

    private func converse(_ message: RelayMessage, recipient: String) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: upstream.host, port: upstream.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPLineDecoder(limit: SMTPListener.lineLimit)))
                    return try NIOAsyncChannel<SMTPLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var replies = inbound.makeAsyncIterator()
            func expect(_ codes: Set<String>, after command: String?) async throws -> String {
                if let command { try await outbound.write(ByteBuffer(string: command + "\r\n")) }
                var reply = ""
                while let line = try await replies.next() {
                    guard let text = line.lenientText else { continue }
                    reply = text
                    if text.count < 4 || text[text.index(text.startIndex, offsetBy: 3)] != "-" { break }
                }
                guard codes.contains(String(reply.prefix(3))) else {
                    throw ForwardingFailure(step: command.map { String($0.prefix(40)) } ?? "greeting", reply: String(reply.prefix(200)))
                }
                return reply
            }
            _ = try await expect(["220"], after: nil)
            _ = try await expect(["250"], after: "EHLO \(SMTPSession.hostName)")
            _ = try await expect(["250"], after: "MAIL FROM:<\(message.envelopeFrom)>")
            _ = try await expect(["250", "251"], after: "RCPT TO:<\(recipient)>")
            _ = try await expect(["354"], after: "DATA")
            let final = try await expect(["250"], after: Self.dataText(message) + "\r\n.")
            _ = try? await expect(["221"], after: "QUIT")
            return "accepted by upstream: \(final.prefix(200))"
        }
    }

    /// The message as sent on: its header lines, a blank line and the body, each line dot-stuffed,
    /// joined with CRLF (the caller adds the terminating `.`).
    static func dataText(_ message: RelayMessage) -> String {
        var body = message.body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if body.last == "" { body.removeLast() }
        let lines = message.headers.map { "\($0.name): \($0.value)" } + [""] + body
        return lines.map { $0.hasPrefix(".") ? "." + $0 : $0 }.joined(separator: "\r\n")
    }
}

/// An upstream reply that ended forwarding.
struct ForwardingFailure: Error, CustomStringConvertible {
    let step: String
    let reply: String
    var description: String { "\(step) answered \(reply.isEmpty ? "nothing" : reply)" }
}
