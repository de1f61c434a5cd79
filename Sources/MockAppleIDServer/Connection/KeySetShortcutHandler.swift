import HTTPTypes
import MockAppleID
import NIOCore
import NIOHTTPTypes

/// Answers `GET /auth/keys` on the connection's event loop with what the router would answer (the same
/// body, fields and journal record), without handing the request to the router's task, when nothing
/// but the body bears on the answer: no request of the connection is still with the router (answers
/// keep their order), the request has no query, no body and no `Connection` field other than
/// `keep-alive`, and the provider has the body at hand (``AppleIDProvider/plainKeySetBody()``: no
/// fault queued, no store to wait for). Every other request passes through untouched.
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
    private let date: HTTPDateField
    /// Requests passed on to the router whose answers have not ended.
    private var withRouter = 0
    /// A `GET /auth/keys` head held until the request's end shows it has no body.
    private var held: HTTPRequest?

    init(provider: AppleIDProvider, date: HTTPDateField) {
        self.provider = provider
        self.date = date
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(request):
            if withRouter == 0, Self.mayShortcut(request) {
                held = request
                return
            }
            withRouter += 1
        case .body:
            passOnHeld(context: context)
        case .end:
            if held != nil {
                if let body = provider.plainKeySetBody() {
                    held = nil
                    return answer(body, context: context)
                }
                passOnHeld(context: context)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), withRouter > 0 { withRouter -= 1 }
        context.write(data, promise: promise)
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

    private static func mayShortcut(_ request: HTTPRequest) -> Bool {
        guard request.method == .get, request.path == path else { return false }
        guard let connection = request.headerFields[.connection] else { return true }
        return connection.lowercased() == "keep-alive"
    }
}

/// What each connection's ``KeySetShortcutHandler`` is made from: one per listener.
struct KeySetShortcut: Sendable {
    let provider: AppleIDProvider
    let date = HTTPDateField()

    func makeHandler() -> KeySetShortcutHandler { KeySetShortcutHandler(provider: provider, date: date) }
}
