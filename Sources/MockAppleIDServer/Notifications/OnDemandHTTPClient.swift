import AsyncHTTPClient
import Synchronization

/// async-http-client's client for one notification sender, made when the first notification is posted
/// (most servers never post one, so their start-up does not pay for it) and shut down with the sender.
final class OnDemandHTTPClient: Sendable {
    private enum State {
        case notMade
        case made(HTTPClient)
        case shutDown
    }

    private let configuration: HTTPClient.Configuration
    private let state = Mutex<State>(.notMade)

    init(configuration: HTTPClient.Configuration) {
        self.configuration = configuration
    }

    /// The client, made on the first call. Asking for it after ``shutdown()`` is a programming error.
    var client: HTTPClient {
        state.withLock { state in
            switch state {
            case let .made(client):
                return client
            case .notMade:
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                state = .made(client)
                return client
            case .shutDown:
                preconditionFailure("a notification sender's HTTP client was asked for after it was shut down")
            }
        }
    }

    /// Whether a client is made and not shut down.
    var isMade: Bool {
        state.withLock { state in
            if case .made = state { return true }
            return false
        }
    }

    /// Shuts the client down if it was made; it cannot be asked for afterwards.
    func shutdown() async {
        let made: HTTPClient? = state.withLock { state in
            defer { state = .shutDown }
            if case let .made(client) = state { return client }
            return nil
        }
        try? await made?.shutdown()
    }
}
