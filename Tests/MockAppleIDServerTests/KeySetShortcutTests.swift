import HTTPTypes
import MockAppleID
@testable import MockAppleIDServer
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

/// `GET /auth/keys` answered on the event loop, and every request it must leave to the router.
@Suite("key-set shortcut")
struct KeySetShortcutTests {
    private static func keysRequest(path: String = KeySetShortcutHandler.path, method: HTTPRequest.Method = .get,
                                    connection: String? = nil) -> HTTPRequest {
        var request = HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path)
        request.headerFields[.connection] = connection
        return request
    }

    private static func channel(_ provider: AppleIDProvider) -> EmbeddedChannel {
        EmbeddedChannel(handler: KeySetShortcut(provider: provider, bodies: KeySetBodies(provider: provider)).makeHandler())
    }

    /// The parts the channel wrote out, in order.
    private static func written(_ channel: EmbeddedChannel) throws -> [HTTPResponsePart] {
        var parts: [HTTPResponsePart] = []
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) { parts.append(part) }
        return parts
    }

    /// The parts passed on towards the router, in order.
    private static func passedOn(_ channel: EmbeddedChannel) throws -> [HTTPRequestPart] {
        var parts: [HTTPRequestPart] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) { parts.append(part) }
        return parts
    }

    @Test("a plain GET gets the router's fields and body from the event loop, and is journaled like the router's")
    func answersAPlainFetch() throws {
        let provider = try Harness.provider()
        let channel = Self.channel(provider)
        for connection in [nil, "keep-alive", "Keep-Alive"] {
            try channel.writeInbound(HTTPRequestPart.head(Self.keysRequest(connection: connection)))
            try channel.writeInbound(HTTPRequestPart.end(nil))
            #expect(try Self.passedOn(channel).isEmpty)
            let parts = try Self.written(channel)
            #expect(parts.count == 3)
            guard parts.count == 3, case let .head(head) = parts[0], case let .body(body) = parts[1] else {
                Issue.record("expected a head, a body and an end, got \(parts)")
                continue
            }
            #expect(parts[2] == .end(nil))
            #expect(head.status == .ok)
            #expect(String(buffer: body) == provider.keySetJSON)
            var expected = AppleRoutes.metadataFields
            expected[.contentLength] = String(body.readableBytes)
            expected[.date] = head.headerFields[.date]
            #expect(head.headerFields == expected)
            #expect(head.headerFields[.date]?.hasSuffix(" GMT") == true)
        }
        let entries = provider.journal.entries()
        #expect(entries.count == 3)
        #expect(entries.allSatisfy {
            $0.method == "GET" && $0.endpoint == "/auth/keys" && $0.via == .http && $0.status == 200
                && $0.reason == AppleIDProvider.keysServedReason
        })
    }

    @Test("a query, another method, a body or a Connection field other than keep-alive goes to the router",
          arguments: [
              keysRequest(path: "/auth/keys?fresh=1"), keysRequest(method: .head), keysRequest(path: "/auth/keys/"),
              keysRequest(path: "/t/other/auth/keys"), keysRequest(connection: "close"), keysRequest(connection: "upgrade"),
          ])
    func passesOnWhatItCannotAnswer(request: HTTPRequest) throws {
        let channel = Self.channel(try Harness.provider())
        try channel.writeInbound(HTTPRequestPart.head(request))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [.head(request), .end(nil)])
        #expect(try Self.written(channel).isEmpty)
    }

    @Test("a GET with a body goes to the router, body and all")
    func passesOnABody() throws {
        let channel = Self.channel(try Harness.provider())
        let body = ByteBuffer(string: "{}")
        try channel.writeInbound(HTTPRequestPart.head(Self.keysRequest()))
        try channel.writeInbound(HTTPRequestPart.body(body))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [.head(Self.keysRequest()), .body(body), .end(nil)])
        #expect(try Self.written(channel).isEmpty)
    }

    @Test("a queued fault leaves the fetch to the router, which takes it; the next fetch is answered directly")
    func leavesFaultsToTheRouter() throws {
        let provider = try Harness.provider()
        try provider.queueFault(Fault(.keysUnavailable(status: 503)))
        let channel = Self.channel(provider)
        try channel.writeInbound(HTTPRequestPart.head(Self.keysRequest()))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [.head(Self.keysRequest()), .end(nil)])
        #expect(provider.journal.entries().isEmpty)

        // The router answers (taking the fault); then nothing is queued.
        #expect(provider.takeTransportFault(.keys, clientID: nil) != nil)
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .serviceUnavailable)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        _ = try Self.written(channel)
        try channel.writeInbound(HTTPRequestPart.head(Self.keysRequest()))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel).isEmpty)
        #expect(try Self.written(channel).count == 3)
    }

    @Test("a world kept in a store leaves the fetch to the router, which answers once its journal record is saved")
    func leavesStoresToTheRouter() async throws {
        let provider = try Harness.provider()
        try await provider.keepState(in: StateFileTests.FailingStore())
        let channel = Self.channel(provider)
        try channel.writeInbound(HTTPRequestPart.head(Self.keysRequest()))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [.head(Self.keysRequest()), .end(nil)])
        #expect(try Self.written(channel).isEmpty)
    }

    @Test("while the router holds a request of the connection, later fetches wait their turn behind it")
    func keepsAnswersInOrder() throws {
        let provider = try Harness.provider()
        let channel = Self.channel(provider)
        let token = HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/auth/token")
        try channel.writeInbound(HTTPRequestPart.head(token))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        try channel.writeInbound(HTTPRequestPart.head(Self.keysRequest()))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [.head(token), .end(nil), .head(Self.keysRequest()), .end(nil)])
        #expect(try Self.written(channel).isEmpty)

        // The router answers both; a fetch after that is answered directly.
        for _ in 0..<2 {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        #expect(try Self.written(channel).count == 4)
        try channel.writeInbound(HTTPRequestPart.head(Self.keysRequest()))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel).isEmpty)
        #expect(try Self.written(channel).count == 3)
    }

    @Test("a connection that cannot take more output leaves the fetch to the router, whose reading waits for the client")
    func leavesBackpressureToTheRouter() throws {
        let channel = Self.channel(try Harness.provider())
        channel.isWritable = false
        try channel.writeInbound(HTTPRequestPart.head(Self.keysRequest()))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [.head(Self.keysRequest()), .end(nil)])
        #expect(try Self.written(channel).isEmpty)
    }

    @Test("once a request or an answer says Connection: close, or the channel closes, every later fetch goes to the router",
          arguments: ["request", "answer", "closing"])
    func leavesAnEndingConnectionToTheRouter(ending: String) throws {
        let channel = Self.channel(try Harness.provider())
        let token = HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/auth/token",
                                headerFields: ending == "request" ? [.connection: "keep-alive, Close"] : [:])
        try channel.writeInbound(HTTPRequestPart.head(token))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [.head(token), .end(nil)])
        if ending == "closing" { channel.pipeline.close(mode: .output, promise: nil) }
        let answer = HTTPResponse(status: .badRequest, headerFields: ending == "answer" ? [.connection: "close"] : [:])
        try channel.writeOutbound(HTTPResponsePart.head(answer))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        _ = try Self.written(channel)
        try channel.writeInbound(HTTPRequestPart.head(Self.keysRequest()))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.passedOn(channel) == [.head(Self.keysRequest()), .end(nil)])
        #expect(try Self.written(channel).isEmpty)
    }

    @Test("the Date field is RFC 9110's IMF-fixdate")
    func formatsTheDate() {
        #expect(HTTPDateField.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDateField.format(secondsSince1970: 4_102_444_799) == "Thu, 31 Dec 2099 23:59:59 GMT")
    }
}
