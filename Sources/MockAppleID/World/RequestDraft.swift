import Foundation
import Synchronization

/// The journal entry of one Apple-endpoint request, written once, when the request's answer is final.
///
/// ``AppleIDProvider/perform(_:_:)`` opens one for a request to one of Apple's endpoints (``current``, for the
/// request's task, inside the core alone) and writes it once the answer is saved, or refused because the store
/// failed; the provider notes in it what it decided, the route what it served. A request made through the Swift
/// API, the admin API or a timeline has none: the provider writes its entry itself, when it answers. Either way
/// ``AppleIDProvider/journal(_:_:)`` is the one writer.
final class RequestDraft: Sendable {
    /// The draft of the HTTP request the current task serves, if any.
    @TaskLocal static var current: RequestDraft?

    /// What the provider decided, at the instant it read for the request.
    struct Decision: Sendable {
        let record: RequestRecord
        let time: Date
    }

    let endpoint: AppleEndpoint
    let origin: RequestOrigin
    private let state = Mutex<(clientID: String?, reason: String?, decision: Decision?)>((nil, nil, nil))

    init(endpoint: AppleEndpoint, origin: RequestOrigin) {
        self.endpoint = endpoint
        self.origin = origin
    }

    /// The `client_id` the request named, for an entry the provider does not make (a body it cannot read).
    func name(clientID: String?) { state.withLock { $0.clientID = clientID } }

    /// What was done, for an answer the provider did not decide (the keys, the discovery document).
    func note(reason: String) { state.withLock { $0.reason = reason } }

    /// The provider's entry for the request, written when the request ends.
    func keep(_ record: RequestRecord, at time: Date) { state.withLock { $0.decision = Decision(record: record, time: time) } }

    var clientID: String? { state.withLock { $0.decision?.record.clientID ?? $0.clientID } }
    var reason: String? { state.withLock { $0.reason } }
    var decision: Decision? { state.withLock { $0.decision } }
}

/// How an Apple-endpoint request over HTTP ended, for its journal entry.
enum RequestEnding: Sendable {
    /// Answered as the provider decided, or (the keys, the discovery document) with status 200 and
    /// what the route noted.
    case answered
    /// Refused with Apple's error before or by the provider.
    case refused(AppleError)
    /// Answered with a bare server error (a fault, or a store that cannot be used): the status and why.
    case failed(status: Int, reason: String)
}
