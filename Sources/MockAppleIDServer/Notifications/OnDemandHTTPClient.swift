import AsyncHTTPClient
import Synchronization

/// async-http-client's client for one notification sender, made when the first notification is posted
/// (most servers never post one, so their start-up does not pay for it) and shut down with the sender.
final class OnDemandHTTPClient: Sendable {
    private let configuration: HTTPClient.Configuration
    private let made = Mutex<HTTPClient?>(nil)

    init(configuration: HTTPClient.Configuration) {
        self.configuration = configuration
    }

    /// The client, made on the first call.
    var client: HTTPClient {
        made.withLock { made in
            if let client = made { return client }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            made = client
            return client
        }
    }

    /// Shuts the client down if it was made; it must not be used afterwards.
    func shutdown() async {
        guard let client = made.withLock({ $0 }) else { return }
        try? await client.shutdown()
    }
}
