import HTTPTypes
import MockAppleID
import NIOCore
import NIOHTTPTypes

/// Answers `GET /auth/keys` on the connection's event loop with what the router would answer (the same
/// body, fields and journal record), without handing the request to the router's task, when nothing
/// but the body bears on the answer: no request of the connection is still with the router (answers
/// keep their order), the connection is writable (a client that sends without reading meets the
/// router's backpressure) and is not ending (`Connection: close` either way, or closing), the request
/// has no query, no body and no `Connection` field other than `keep-alive`, and the provider can answer
/// from the body alone (``AppleIDProvider/answersKeysAlone``: no fault queued, no store to wait for).
/// Every other request passes through untouched.
///
/// Relying parties fetch the keys far more often than they sign in; this keeps each fetch close to
/// the cost of writing its bytes.
final class KeySetShortcutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let path = "/auth/keys"

    private let provider: AppleIDProvider
    private let bodies: KeySetBodies
    private let date: HTTPDateField
    /// Requests passed on to the router whose answers have not ended.
    private var withRouter = 0
    /// A `GET /auth/keys` head held until the request's end shows it has no body.
    private var held: HTTPRequest?
    /// The connection is to end: from then on every request goes to the router, which answers none after the last.
    private var ending = false

    init(provider: AppleIDProvider, bodies: KeySetBodies, date: HTTPDateField) {
        self.provider = provider
        self.bodies = bodies
        self.date = date
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(request):
            if !ending, withRouter == 0, context.channel.isWritable, Self.mayShortcut(request) {
                held = request
                return
            }
            if Self.saysClose(request.headerFields) { ending = true }
            withRouter += 1
        case .body:
            passOnHeld(context: context)
        case .end:
            if held != nil {
                if provider.answersKeysAlone {
                    held = nil
                    provider.journalAnswered(.keys, origin: .http("GET"), served: AppleIDProvider.keysServedReason)
                    return answer(bodies.body(), context: context)
                }
                passOnHeld(context: context)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case let .head(response): if Self.saysClose(response.headerFields) { ending = true }
        case .end: if withRouter > 0 { withRouter -= 1 }
        case .body: break
        }
        context.write(data, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        ending = true
        context.close(mode: mode, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        held = nil
        context.fireChannelInactive()
    }

    /// A held head goes to the router after all: the request has a body, or the provider cannot answer alone.
    private func passOnHeld(context: ChannelHandlerContext) {
        guard let head = held else { return }
        held = nil
        withRouter += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    private func answer(_ body: String, context: ChannelHandlerContext) {
        let buffer = context.channel.allocator.buffer(string: body)
        var fields = Self.fields
        fields[.contentLength] = String(buffer.readableBytes)
        fields[.date] = date.now
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(buffer)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// The fields the router's answer has besides its length and date.
    private static let fields = AppleRoutes.metadataFields

    /// Whether `fields` has a `Connection` field naming `close`.
    private static func saysClose(_ fields: HTTPFields) -> Bool {
        fields[values: .connection].contains { value in
            value.lowercased().split(separator: ",").contains { $0.filter { $0 != " " && $0 != "\t" } == "close" }
        }
    }

    private static func mayShortcut(_ request: HTTPRequest) -> Bool {
        guard request.method == .get, request.path == path else { return false }
        guard let connection = request.headerFields[.connection] else { return true }
        return connection.lowercased() == "keep-alive"
    }
}

/// What each connection's ``KeySetShortcutHandler`` is made from: one per listener.
struct KeySetShortcut: Sendable {
    let provider: AppleIDProvider
    let bodies: KeySetBodies
    let date = HTTPDateField()

    func makeHandler() -> KeySetShortcutHandler { KeySetShortcutHandler(provider: provider, bodies: bodies, date: date) }
}
