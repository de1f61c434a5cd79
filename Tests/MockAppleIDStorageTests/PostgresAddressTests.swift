@testable import MockAppleIDStorage
import MockAppleID
import PostgresNIO
import Testing

/// `--database-url`: the host a server connects to is the one a resolver and a certificate name.
@Suite("database URL")
struct PostgresAddressTests {
    @Test("an international host is connected to in its xn-- form, an IPv6 one without its brackets")
    func hosts() throws {
        let international = try PostgresAddress("postgres://mock@bücher.example:5433/world")
        #expect(international.configuration.host == "xn--bcher-kva.example" && international.configuration.port == 5433)
        #expect(international.name == "postgres://mock@xn--bcher-kva.example:5433/world")
        let loopback = try PostgresAddress("postgres://mock@[::1]/world")
        #expect(loopback.configuration.host == "::1" && loopback.configuration.port == 5432)
        #expect(loopback.name == "postgres://mock@[::1]:5432/world")
    }

    @Test("a host that escapes leave as no name a request can carry is refused", arguments: [
        "postgres://mock@db%00.example/world", "postgres://mock@a%20b/world", "postgres://mock@/world",
    ])
    func refusedHosts(url: String) {
        #expect(throws: StateStoreError.self) { try PostgresAddress(url) }
    }

    @Test("a write's announcement names its tenant after the writing store's id: the server's own world, or a tenant with spaces")
    func announcedTenant() {
        #expect(PostgresWorldStore.tenant(announcedIn: "4F0C1F0E-0000-4000-8000-000000000000 ") == "")
        #expect(PostgresWorldStore.tenant(announcedIn: "4F0C1F0E-0000-4000-8000-000000000000 team a") == "team a")
        #expect(PostgresWorldStore.tenant(announcedIn: "no-space") == nil)
    }
}
