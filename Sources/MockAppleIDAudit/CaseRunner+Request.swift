import Foundation
import MockAppleID

extension CaseRunner {
    /// The relying party's authorize request, judged from the honest sign-in's and, for freshness, from a second one
    /// begun in another browser.
    func judgeRequest(_ auditCase: AuditCase) async throws(AuditFailure) -> Outcome {
        let request = learned.request
        switch auditCase {
        case .requestState: return RequestRules.state(request.first("state"))
        case .requestStateFresh, .requestNonceFresh:
            let name = auditCase == .requestStateFresh ? "state" : "nonce"
            guard let first = request.first(name) else { return .skipped("the relying party sends no \(name)") }
            let again = try await session.begin()
            return RequestRules.fresh(name, first: first, second: again.request.first(name))
        case .requestRedirectURI: return RequestRules.redirectURI(request.first("redirect_uri"))
        case .requestPKCE: return RequestRules.pkce(challenge: request.first("code_challenge"), method: request.first("code_challenge_method"))
        default: return .skipped("not a case of the authorize request")
        }
    }
}

/// How the `request.*` cases judge the parameters of an authorize request.
enum RequestRules {
    /// The bits a state must carry at least (RFC 6749 section 10.10: guessed with a probability of at most 2^-128).
    static let stateBits = 128.0

    static func state(_ state: String?) -> CaseRunner.Outcome {
        guard let state, !state.isEmpty else { return .judged(.fail, "sends no state: nothing ties Apple's answer to the browser that asked") }
        let bits = estimatedBits(state)
        let estimate = "about \(Int(bits)) bits by its length (\(state.count)) and alphabet (\(alphabetName(state)))"
        if bits < stateBits { return .judged(.warn, "sends a state of \(estimate): fewer than \(Int(stateBits))") }
        return .judged(.pass, "sends a state of \(estimate)")
    }

    static func fresh(_ name: String, first: String, second: String?) -> CaseRunner.Outcome {
        guard let second else { return .judged(.fail, "sent a \(name) in the honest sign-in, and none in the next one") }
        if second == first { return .judged(.fail, "sent the same \(name) in two sign-ins of two browsers (\(first.prefix(40)))") }
        return .judged(.pass, "sent a new \(name) in each sign-in")
    }

    static func redirectURI(_ value: String?) -> CaseRunner.Outcome {
        guard let value, let url = URL(string: value), let scheme = url.scheme?.lowercased() else {
            return .judged(.fail, "sends no redirect_uri that is a URL")
        }
        if scheme == "https" { return .judged(.pass, "returns to \(value)") }
        guard scheme == "http" else { return .judged(.fail, "returns to \(value): not https, which Apple requires of a return URL") }
        if isLoopback(url.host ?? "") { return .judged(.pass, "returns to \(value): plain http, on a loopback host (where Apple's https never applies)") }
        return .judged(.fail, "returns to \(value): plain http off the loopback host, so Apple's answer (the code, the person) crosses the network unencrypted")
    }

    static func pkce(challenge: String?, method: String?) -> CaseRunner.Outcome {
        guard let challenge, !challenge.isEmpty else { return .judged(.warn, "sends no PKCE code_challenge") }
        let method = method ?? "plain"
        if method == "S256" { return .judged(.pass, "sends a PKCE code_challenge with method S256") }
        return .judged(.warn, "sends a PKCE code_challenge with method \(method), which shows the verifier itself")
    }

    /// Bits of a value made of random characters of its alphabet: the smallest usual alphabet (digits, hex, base64url
    /// or base64, printable ASCII) that holds all its characters.
    static func estimatedBits(_ value: String) -> Double {
        if isUUID(value) { return 122 }
        let counted = value.filter { $0 != "-" }
        // Hex with hyphens (a UUID's other versions, a grouped hex token) counts its hex digits.
        if counted.count < value.count, alphabet(of: counted).size == 16 { return Double(counted.count) * 4 }
        return Double(value.count) * log2(Double(alphabet(of: value).size))
    }

    /// Whether `value` is a UUID (8-4-4-4-12 hex digits), which carries 122 random bits at most.
    private static func isUUID(_ value: String) -> Bool {
        let groups = value.split(separator: "-", omittingEmptySubsequences: false)
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    private static func alphabetName(_ value: String) -> String { isUUID(value) ? "a UUID's" : alphabet(of: value).name }

    private static func alphabet(of value: String) -> (name: String, size: Int) {
        let digits = Set("0123456789")
        let hex = digits.union("abcdef")
        let upperHex = digits.union("ABCDEF")
        let base64URL = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let base64 = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
        let characters = Set(value)
        if characters.isSubset(of: digits) { return ("digits", 10) }
        if characters.isSubset(of: hex) || characters.isSubset(of: upperHex) { return ("hex", 16) }
        if characters.isSubset(of: base64URL) { return ("base64url", 64) }
        if characters.isSubset(of: base64) { return ("base64", 64) }
        return ("printable", 95)
    }

    /// `localhost` (and its subdomains), an IPv4 address in 127.0.0.0/8, or IPv6's `::1` in any spelling (an IPv4-mapped
    /// loopback address too).
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        if octets.count == 4, octets.allSatisfy({ UInt8($0).map(String.init) == String($0) }) { return octets[0] == "127" }
        var address = in6_addr()
        guard inet_pton(AF_INET6, name, &address) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        if bytes == Array(repeating: 0, count: 15) + [1] { return true }
        return bytes.prefix(12) == ArraySlice(Array(repeating: 0, count: 10) + [0xFF, 0xFF]) && bytes[12] == 127
    }
}
