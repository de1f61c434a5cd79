import Foundation
import Hummingbird
import MockAppleID
import NIOCore

extension AdminRoutes {
    /// Registers `route` (``AdminStreamingRoute``): the body is read and checked, the route may refuse (400, 409)
    /// before anything runs, and its work starts with the answer's body, one JSON object per line. A client that goes
    /// away cancels the work; a server that shuts down sends the route's last line and cancels it.
    func registerStreaming(_ route: AdminStreamingRoute, on admin: RouterGroup<BasicRequestContext>) {
        admin.post(RouterPath(route.path)) { request, _ in
            let asked = AdminRouteRequest(body: try await body(request, allowing: route.fields), provider: provider,
                                          baseURL: listeners.current?.under(configuration.pathPrefix).http.url, configuration: configuration)
            let stream: AdminLineStream
            do throws(AdminRouteRefusal) { stream = try await route.start(asked) } catch { throw error.adminError }
            // The work starts with the answer's body: an answer never sent (a failed save, a client already gone)
            // drops it unrun, with whatever it holds.
            let body = ResponseBody { writer in
                let (lines, feed) = AsyncStream.makeStream(of: ByteBuffer.self)
                let job = Task {
                    await stream.work { line in feed.yield(Self.line(line)) }
                    feed.finish()
                }
                defer { job.cancel() }
                try await AdminResponse.writeLive(lines, feed: feed, keepAlive: ByteBuffer(string: "\n"), every: Self.streamHeartbeat,
                                                  to: &writer) {
                    feed.yield(Self.line(stream.shutdownLine))
                    job.cancel()
                }
            }
            return Response(status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"], body: body)
        }
    }

    /// How often a streaming route's answer sends an empty line while its work runs (an audit's case may take a
    /// minute). A client gone away is noticed only when a write fails (the line after the one that draws its reset),
    /// so this also sets how soon abandoned work stops: within about two beats.
    static let streamHeartbeat = Duration.seconds(2)

    private static func line(_ value: JSONValue) -> ByteBuffer {
        ByteBuffer(string: value.serialized + "\n")
    }
}
