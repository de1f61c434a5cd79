import AsyncHTTPClient
@testable import MockAppleIDServer
import Testing

/// A notification sender's HTTP client: made when first asked for, once, and shut down with the sender.
@Suite("notification sender's HTTP client")
struct OnDemandHTTPClientTests {
    @Test("one client is made on the first call and shared after; shutting down one never made does nothing")
    func madeOnceWhenAskedFor() async {
        let unused = OnDemandHTTPClient(configuration: HTTPClient.Configuration())
        #expect(!unused.isMade)
        await unused.shutdown()

        let used = OnDemandHTTPClient(configuration: HTTPClient.Configuration())
        let first = used.client
        #expect(used.isMade)
        #expect(used.client === first)
        await used.shutdown()
        #expect(!used.isMade)
    }
}
