import Foundation
@testable import MockAppleIDAudit
import Testing

/// The addresses an audit may reach: the rule itself, with names resolved by a fake resolver (nothing is sent).
@Suite("audit targets")
struct AuditTargetsTests {
    /// A resolver that knows a few names and nothing else.
    static let names: [String: [String]] = ["rp.compose": ["172.18.0.3"], "metadata.example": ["169.254.169.254"],
                                            "public.example": ["198.51.100.7"], "v6.example": ["fd12::1"],
                                            "localhost": ["::1", "127.0.0.1"], "mixed.example": ["10.0.0.5", "169.254.169.254"]]

    static func resolve(_ host: String) async throws -> [String] {
        if let addresses = names[host] { return addresses }
        if IPNetwork.bytes(of: host) != nil { return [host] }
        throw AuditFailure("unknown name")
    }

    /// Only 127.0.0.1 accepts connections (a relying party that listens on IPv4 alone).
    static func accepts(_ address: String, _ port: Int) async -> Bool { address == "127.0.0.1" }

    static func pinned(_ targets: AuditTargets, _ url: String) async -> Result<[String: String], AuditFailure> {
        do throws(AuditFailure) {
            return .success(try await targets.pin([("--start", URL(string: url)!)], resolve: resolve, accepts: accepts))
        } catch {
            return .failure(error)
        }
    }

    @Test("link-local, metadata, unspecified, multicast and reserved addresses are refused whatever the setting, also inside IPv6")
    func alwaysRefused() async {
        for url in ["http://169.254.169.254/", "http://169.254.1.1:8080/", "http://0.0.0.0/", "http://[fe80::1]/", "http://[fd00:ec2::254]/",
                    "http://[::ffff:169.254.169.254]/", "http://[64:ff9b::a9fe:a9fe]/", "http://100.100.100.200/", "http://224.0.0.1/",
                    "http://255.255.255.255/", "http://[::]/", "http://[ff02::1]/", "http://metadata.example/", "http://mixed.example/"] {
            for targets in [AuditTargets.any, .loopbackAndPrivate] {
                guard case let .failure(failure) = await Self.pinned(targets, url) else {
                    Issue.record("\(url) was allowed with \(targets)"); continue
                }
                #expect(failure.description.hasPrefix("--start: ") && failure.description.contains("the audit does not send requests there"))
            }
        }
    }

    @Test("by default loopback and private addresses are allowed and pinned; others only with any or a block that holds them")
    func settings() async throws {
        for url in ["http://127.0.0.1:8000/", "http://[::1]/", "http://10.1.2.3/", "http://rp.compose/", "http://v6.example/", "http://192.168.1.9/"] {
            let pins = try await Self.pinned(.loopbackAndPrivate, url).get()
            let host = try #require(URL(string: url)?.host)
            #expect(pins[host] == Self.names[host]?.first ?? host)
        }
        // A name with several addresses is pinned to the first that takes a connection; hosts are pinned in lower case.
        #expect(try await Self.pinned(.loopbackAndPrivate, "http://LocalHost:8000/").get() == ["localhost": "127.0.0.1"])
        guard case let .failure(failure) = await Self.pinned(.loopbackAndPrivate, "http://public.example/") else {
            Issue.record("a public address was allowed by default"); return
        }
        #expect(failure.description == "--start: public.example (198.51.100.7) is outside the audit targets (loopback,private); the audit does not send requests there")
        #expect(try await Self.pinned(.any, "http://public.example/").get() == ["public.example": "198.51.100.7"])
        let block = try AuditTargets(parsing: "198.51.100.0/24, loopback")
        #expect(block.description == "198.51.100.0/24,loopback")
        #expect(try await Self.pinned(block, "http://public.example/").get() == ["public.example": "198.51.100.7"])
        #expect(try await Self.pinned(block, "http://127.0.0.1/").get() == ["127.0.0.1": "127.0.0.1"])
        let outside = await Self.pinned(block, "http://10.1.2.3/")
        #expect(throws: AuditFailure.self) { try outside.get() }
    }

    @Test("the setting is any, or loopback, private and CIDR blocks; anything else is refused, naming it")
    func parsing() {
        for wrong in ["", "everywhere", "10.0.0.0/33", "10.0.0/8", "fd00::/129", "any,loopback", "10.0.0.0/x"] {
            #expect(throws: AuditFailure.self, "\(wrong)") { try AuditTargets(parsing: wrong) }
        }
        #expect(IPNetwork("10.0.0.0/8")?.contains([10, 255, 0, 1]) == true)
        #expect(IPNetwork("172.16.0.0/12")?.contains([172, 32, 0, 1]) == false)
        #expect(IPNetwork("0.0.0.0/0")?.contains([8, 8, 8, 8]) == true)
        #expect(IPNetwork("fc00::/7")?.contains(IPNetwork.bytes(of: "fdff::1")!) == true)
    }

    @Test("a name the resolver does not know is refused with the reason")
    func unresolved() async {
        guard case let .failure(failure) = await Self.pinned(.any, "http://nowhere.example/") else { Issue.record("allowed"); return }
        #expect(failure.description.hasPrefix("--start: nowhere.example cannot be resolved"))
    }
}
