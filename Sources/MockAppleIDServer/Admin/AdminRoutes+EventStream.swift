import Foundation
import HTTPTypes
import Hummingbird
import MockAppleID

extension AdminRoutes {
    /// `GET /__admin/events/stream[?after=N]`: every domain event as it happens, as server-sent events
    /// (`text/event-stream`), each `id: <sequence>` and `data: <the event as /__admin/events lists it>`;
    /// the events after `N` (or after the `Last-Event-ID` a reconnecting `EventSource` sends) come first.
    /// A comment line every 15 s keeps the connection alive; the stream ends when the server shuts down. A
    /// sequence number this server has not reached (a reader resuming after the server restarted, whose
    /// numbers start again from 1) streams from the start of the log. A reader that falls
    /// ``streamBuffer`` events behind misses the oldest of them.
    func registerEventStream(on admin: RouterGroup<BasicRequestContext>) {
        admin.get("events/stream") { request, _ in
            let log = provider.world.events
            let asked = try request.headers[Self.lastEventID].map { text throws(AdminError) -> Int in
                guard let value = Int(text), value >= 0 else { throw AdminError.badRequest("Last-Event-ID must be a whole number") }
                return value
            } ?? after(request)
            let after = asked < log.nextSequence ? asked : 0
            let body = ResponseBody { writer in
                // Subscribed before the log is read, so that no event falls between the two; repeats are skipped by sequence.
                let live = log.subscribe(bufferLimit: Self.streamBuffer)
                var sent = after
                for recorded in log.events(after: after) {
                    try await writer.write(Self.frame(recorded))
                    sent = recorded.sequence
                }
                try await writer.write(ByteBuffer(string: ": mock-appleid events after \(sent)\n\n"))
                // The live events and the keep-alive comments, in one stream the writer's task reads.
                let (frames, feed) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(Self.streamBuffer))
                let caughtUp = sent
                let pump = Task {
                    for await recorded in live where recorded.sequence > caughtUp { feed.yield(Self.frame(recorded)) }
                    feed.finish()
                }
                defer { pump.cancel() }
                try await AdminResponse.writeLive(frames, feed: feed, keepAlive: ByteBuffer(string: ": keep-alive\n\n"), every: Self.heartbeat,
                                                  to: &writer)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
        }
    }

    private static let lastEventID = HTTPField.Name("Last-Event-ID")!
    /// Events a slow reader may fall behind by before the oldest unsent are dropped.
    static let streamBuffer = 1_000
    static let heartbeat = Duration.seconds(15)

    /// One server-sent event: its sequence as the id, the event's JSON as the data.
    private static func frame(_ recorded: RecordedEvent) -> ByteBuffer {
        let view = EventsView.EventView(sequence: recorded.sequence, time: recorded.time, description: recorded.event.description,
                                        event: recorded.event)
        let json = (try? AdminResponse.encoder.encode(view)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return ByteBuffer(string: "id: \(recorded.sequence)\ndata: \(json)\n\n")
    }
}
