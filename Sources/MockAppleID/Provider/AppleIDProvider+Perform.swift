import Foundation

/// What a piece of work done through ``AppleIDProvider/perform(_:_:)`` is: a request, which answers only once its
/// changes are saved, and for one of Apple's endpoints is journaled when it ends.
public struct Work: Sendable {
    /// The Apple endpoint and the request's origin, for a journaled request.
    let journaled: (endpoint: AppleEndpoint, origin: RequestOrigin)?
    /// The status and reason of a failure that is neither Apple's error nor a store that failed.
    let failure: @Sendable (any Error) -> (status: Int, reason: String)

    /// A request to one of Apple's endpoints over HTTP. Its journal entry is written once it ends: what the provider
    /// decided, else what the route noted (``AppleIDProvider/noteRequest(clientID:)``,
    /// ``AppleIDProvider/noteServed(_:)``), with Apple's error when it was refused, and `failure`'s status and reason
    /// when the work failed otherwise (a fault, say).
    public static func appleRequest(_ endpoint: AppleEndpoint, origin: RequestOrigin,
                                    failure: @escaping @Sendable (any Error) -> (status: Int, reason: String)) -> Work {
        Work(journaled: (endpoint, origin), failure: failure)
    }

    /// A request that is not journaled: an admin write, a message the SMTP relay takes.
    public static let request = Work(journaled: nil, failure: { error in (500, "\(error)") })

    /// A new journal entry for one request of this work, or nil.
    fileprivate func draft() -> RequestDraft? { journaled.map { RequestDraft(endpoint: $0.endpoint, origin: $0.origin) } }
}

extension AppleIDProvider {
    /// Does a request's `body`, the one way the HTTP server, the admin API and the SMTP relay change the world. With a
    /// store, the request answers only once its changes are saved (`serve --state`: a code issued, a token minted
    /// or an admin write acknowledged outlives the process); with a store several servers share, it runs while this
    /// server holds the world, caught up on what the others wrote. Without a store this costs one atomic read.
    /// `afterSaved` runs once the changes are saved, before the entry is written (a fault's delay, slept after a
    /// shared world is let go). Returns `body`'s outcome; throws when the changes cannot be saved (a journaled
    /// request's entry says so, 503). Work done so does not call `perform` or ``performSideJob(_:)`` again: with a
    /// shared world it would wait for its own hold.
    public func perform<T, E: Error>(_ work: Work, afterSaved: () async -> Void = {},
                                     _ body: () async throws(E) -> T) async throws(StateStoreError) -> Result<T, E> {
        let draft = work.draft()
        let outcome: Result<T, E>
        do throws(StateStoreError) {
            outcome = try await saved {
                await RequestDraft.$current.withValue(draft) {
                    do throws(E) { return .success(try await body()) } catch { return .failure(error) }
                }
            }
        } catch {
            if let draft { journal(draft, .failed(status: 503, reason: "answered 503: the world's store cannot be used: \(error.message)")) }
            throw error
        }
        await afterSaved()
        if let draft { journal(draft, Self.ending(of: outcome, failure: work.failure)) }
        return outcome
    }

    /// Journals `work` (when it is journaled) as having failed with `error` before it could be done, such as a body
    /// that could not be read: nothing was changed, so nothing is saved or held.
    public func refuse(_ work: Work, with error: any Error) {
        guard let draft = work.draft() else { return }
        journal(draft, Self.ending(of: Result<Void, any Error>.failure(error), failure: work.failure))
    }

    /// Does a side job's `body` (the notification sender's, the clock driver's, the relay forwarder's): when the world
    /// is shared with other servers, while this server holds it, caught up first, and its changes written before this
    /// returns; otherwise at once.
    public func performSideJob<T: Sendable>(_ body: () -> T) async throws(StateStoreError) -> T {
        try await world.hold(body)
    }

    /// Names the client of the Apple-endpoint request under way, for its journal entry when the provider decides
    /// nothing (a body that cannot be read, a fault).
    public func noteRequest(clientID: String?) { RequestDraft.current?.name(clientID: clientID) }

    /// Says what the Apple-endpoint request under way served, for an answer the provider does not decide (the keys,
    /// the discovery document).
    public func noteServed(_ reason: String) { RequestDraft.current?.note(reason: reason) }

    /// Runs `body` under the saved-before-answering rule.
    private func saved<T>(_ body: () async -> T) async throws(StateStoreError) -> T {
        guard world.isKeptInStore else { return await body() }
        let ticket = try await world.beginRequest()
        defer { ticket.ended() }
        let value = await body()
        try await ticket.waitUntilSaved()
        return value
    }

    private static func ending<T, E>(of outcome: Result<T, E>, failure: (any Error) -> (status: Int, reason: String)) -> RequestEnding {
        switch outcome {
        case .success: return .answered
        case let .failure(error):
            if let refusal = error as? AppleError { return .refused(refusal) }
            let (status, reason) = failure(error)
            return .failed(status: status, reason: String(reason.prefix(500)))
        }
    }
}
