import Foundation
import MockAppleID
import NIOCore
import NIOPosix
import Synchronization

/// The addresses an audit may send requests to. Link-local, cloud-metadata, unspecified, multicast and
/// reserved addresses are refused whatever the setting; beyond them a server limits its audits to loopback
/// and private addresses by default (`serve --audit-targets`), so that whoever may start an audit cannot
/// use it to probe the server's network. Each host is resolved once and checked before anything is sent,
/// and the audit then connects to the address it checked (a name that resolves elsewhere later is not
/// followed there).
public struct AuditTargets: Sendable, Equatable, CustomStringConvertible {
    /// The networks allowed beyond the refused ones; nil allows every address that is not refused.
    let allowed: [IPNetwork]?
    /// The setting as it was given (`loopback,private`, `any`, CIDR blocks).
    public let description: String

    /// Every address that is not refused (the command line's own audits).
    public static let any = AuditTargets(allowed: nil, description: "any")
    /// Loopback and private addresses (a Compose network's among them): a server's default.
    public static let loopbackAndPrivate = AuditTargets(allowed: IPNetwork.loopback + IPNetwork.privateRanges, description: "loopback,private")

    /// The words of the setting.
    public static let syntax = "any, or a comma-separated list of loopback, private and CIDR blocks (10.1.0.0/16, fd00::/8)"

    private init(allowed: [IPNetwork]?, description: String) {
        self.allowed = allowed
        self.description = description
    }

    /// Reads the setting: `any`, or a comma-separated list of `loopback`, `private` and CIDR blocks.
    public init(parsing text: String) throws(AuditFailure) {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !items.isEmpty, text.utf8.count <= 4096 else { throw AuditFailure("audit-targets must be \(Self.syntax)") }
        if items == ["any"] {
            self = .any
            return
        }
        var allowed: [IPNetwork] = []
        for item in items {
            switch item {
            case "loopback": allowed += IPNetwork.loopback
            case "private": allowed += IPNetwork.privateRanges
            default:
                guard let network = IPNetwork(item) else {
                    throw AuditFailure("audit-targets: \"\(item.prefix(60))\" is not loopback, private or a CIDR block; give \(Self.syntax)")
                }
                allowed.append(network)
            }
        }
        self.init(allowed: allowed, description: items.joined(separator: ","))
    }

    /// Why an audit may not reach `address` (the bytes of an IPv4 or IPv6 address); nil when it may.
    func refusal(of address: [UInt8]) -> String? {
        let judged = IPNetwork.embeddedIPv4(in: address) ?? address
        if let refused = IPNetwork.refused.first(where: { $0.network.contains(judged) }) { return refused.reason }
        if let allowed, !allowed.contains(where: { $0.contains(judged) }) { return "outside the audit targets (\(description))" }
        return nil
    }

    /// Resolves each URL's host (`name` says where it came from) and checks every address it resolves to; returns
    /// the address to connect to for each host (by its lower-cased name). Of a name's addresses, the first that
    /// accepts a connection is taken (`localhost` may be `::1` first and a relying party listen on `127.0.0.1`
    /// only). A refusal names the input, the host and the address.
    public func pin(_ urls: [(name: String, url: URL)], resolve: @Sendable (String) async throws -> [String] = AuditTargets.resolve,
                    accepts: @Sendable (String, Int) async -> Bool = AuditTargets.accepts) async throws(AuditFailure) -> [String: String] {
        var pins: [String: String] = [:]
        for (name, url) in urls {
            guard let host = url.host?.lowercased(), pins[host] == nil else { continue }
            let addresses: [String]
            do { addresses = try await resolve(host) } catch {
                throw AuditFailure("\(name): \(host.prefix(253)) cannot be resolved: \(error)")
            }
            guard !addresses.isEmpty else { throw AuditFailure("\(name): \(host.prefix(253)) resolves to no address") }
            for address in addresses {
                let shown = host == address ? address : "\(host.prefix(253)) (\(address.prefix(64)))"
                guard let bytes = IPNetwork.bytes(of: address) else { throw AuditFailure("\(name): \(shown) cannot be read as an address") }
                if let reason = refusal(of: bytes) { throw AuditFailure("\(name): \(shown) is \(reason); the audit does not send requests there") }
            }
            var chosen = addresses[0]
            if addresses.count > 1 {
                let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
                for address in addresses {
                    guard await accepts(address, port) else { continue }
                    chosen = address
                    break
                }
            }
            pins[host] = chosen
        }
        return pins
    }

    /// Name lookups under way, and the most at once: a lookup that gets no answer keeps a thread of NIO's pool
    /// busy after its caller has given up on it.
    private static let lookups = Atomic<Int>(0)
    static let mostLookups = 4

    /// Every address the system resolves `host` to, as text (an address is its own); looked up on NIO's thread
    /// pool (the lookup blocks), and given up on after five seconds.
    @Sendable public static func resolve(_ host: String) async throws -> [String] {
        if IPNetwork.bytes(of: host) != nil { return [host] }
        guard lookups.add(1, ordering: .relaxed).newValue <= mostLookups else {
            lookups.subtract(1, ordering: .relaxed)
            throw AuditFailure("\(mostLookups) name lookups are under way already")
        }
        let lookup = await abandoningAfter(.seconds(5)) { () -> Result<[String], any Error> in
            defer { lookups.subtract(1, ordering: .relaxed) }
            do { return .success(try await NIOThreadPool.singleton.runIfActive { try systemAddresses(host) }) } catch { return .failure(error) }
        }
        guard let lookup else { throw AuditFailure("no answer within 5 s") }
        return try lookup.get()
    }

    /// Whether `address` accepts a TCP connection on `port` within two seconds (the connection is closed at once).
    @Sendable public static func accepts(_ address: String, port: Int) async -> Bool {
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connectTimeout(.seconds(2))
                .connect(host: address, port: port).get()
            try? await channel.close()
            return true
        } catch {
            return false
        }
    }

    /// `getaddrinfo`'s addresses for `host`, in its order, each once.
    private static func systemAddresses(_ host: String) throws -> [String] {
        var hints = addrinfo()
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else { throw AuditFailure(String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        for info in sequence(first: first, next: { $0.pointee.ai_next }) {
            var text = [CChar](repeating: 0, count: 64)
            guard getnameinfo(info.pointee.ai_addr, info.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0
            else { continue }
            let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }
}

/// An IPv4 or IPv6 network: its first address's bytes and the length of its prefix.
struct IPNetwork: Sendable, Equatable {
    let bytes: [UInt8]
    let prefix: Int

    /// `ADDRESS/PREFIX`, or an address alone (a network of one).
    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let bytes = Self.bytes(of: parts[0]) else { return nil }
        let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
        guard let prefix, (0...bytes.count * 8).contains(prefix) else { return nil }
        self.bytes = bytes
        self.prefix = prefix
    }

    /// Whether `address` (of the same family) lies in the network.
    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        var left = prefix
        for (mine, theirs) in zip(bytes, address) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            guard mine & mask == theirs & mask else { return false }
            left -= 8
        }
        return true
    }

    /// The bytes of an IPv4 (dotted, four numbers) or IPv6 address written as text; nil for anything else.
    static func bytes(of text: String) -> [UInt8]? {
        var host = text
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard host.utf8.count <= 64, host.allSatisfy(\.isASCII) else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The IPv4 address inside an IPv4-mapped (`::ffff:0:0/96`) or NAT64 (`64:ff9b::/96`) IPv6 address.
    static func embeddedIPv4(in address: [UInt8]) -> [UInt8]? {
        guard address.count == 16, mapped.contains(address) || nat64.contains(address) else { return nil }
        return Array(address[12...])
    }

    private static let mapped = IPNetwork("::ffff:0:0/96")!
    private static let nat64 = IPNetwork("64:ff9b::/96")!

    static let loopback = ["127.0.0.0/8", "::1"].compactMap(IPNetwork.init)
    /// RFC 1918's and IPv6's unique local addresses.
    static let privateRanges = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"].compactMap(IPNetwork.init)

    /// Refused whatever the setting, with the reason a refusal gives.
    static let refused: [(network: IPNetwork, reason: String)] = [
        ("0.0.0.0/8", "an unspecified address"),
        ("169.254.0.0/16", "a link-local address (where cloud metadata services answer)"),
        ("100.100.100.200", "a cloud metadata address"),
        ("192.0.0.192", "a cloud metadata address"),
        ("224.0.0.0/4", "a multicast address"),
        ("240.0.0.0/4", "a reserved address"),
        ("::", "an unspecified address"),
        ("fe80::/10", "a link-local address"),
        ("fd00:ec2::254", "a cloud metadata address"),
        ("ff00::/8", "a multicast address"),
    ].map { (IPNetwork($0.0)!, $0.1) }
}
