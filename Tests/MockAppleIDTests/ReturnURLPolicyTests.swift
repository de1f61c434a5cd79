import Foundation
import MockAppleID
import Testing

/// Apple's rule for return URLs, read from hosts as requests name them (ASCII, percent-decoded).
@Suite("return URL policy")
struct ReturnURLPolicyTests {
    let apple = ReturnURLPolicy(allowLoopback: false)

    @Test("percent-decoding agrees with Foundation's: escapes undone, a bad escape or bytes that are not UTF-8 refused")
    func percentDecoding() {
        for text in ["plain", "local%68ost", "b%C3%BCcher", "%2F%2f", "100%", "%4", "%zz", "%FF", "a%20b", "", "%E2%82%AC%41", "a+b", "%00", "%C0%AF", "%ED%A0%80"] {
            #expect(text.percentDecoded == text.removingPercentEncoding, "\(text)")
        }
        #expect("b%C3%BCcher".percentDecoded == "bücher" && "%4".percentDecoded == nil && "%FF".percentDecoded == nil)
    }

    @Test("a host is read as requests name it: percent-decoded, an international name in its xn-- form")
    func wireHost() {
        #expect(URLComponents(string: "https://bücher.example/cb")?.wireHost == "xn--bcher-kva.example")
        #expect(URLComponents(string: "https://xn--bcher-kva.example/cb")?.wireHost == "xn--bcher-kva.example")
        #expect(URLComponents(string: "https://local%68ost/cb")?.wireHost == "localhost")
        #expect(URLComponents(string: "https://[::1]:8443/cb")?.wireHost == "[::1]")
        #expect(URLComponents(string: "https:///cb")?.wireHost == "")
        // Escapes that leave a NUL, a space or a non-ASCII name are no host a request can name.
        for url in ["https://db%00.example/cb", "https://a%20b.example/cb", "https://b%C3%BCcher.example/cb"] {
            #expect(URLComponents(string: url) != nil && URLComponents(string: url)?.wireHost == nil, "\(url)")
        }
    }

    @Test("an international domain name is accepted in either spelling")
    func internationalNames() {
        #expect(apple.problem(with: "https://bücher.example/cb") == nil)
        #expect(apple.problem(with: "https://xn--bcher-kva.example/cb") == nil)
        #expect(apple.problem(with: "https://db%00.example/cb")?.contains("not an absolute URL") == true)
    }

    @Test("percent-encoding does not hide loopback, an IP address or a bare name")
    func percentEncodedHosts() {
        #expect(apple.problem(with: "https://local%68ost/cb")?.contains("localhost/loopback") == true)
        #expect(apple.problem(with: "https://10.0.0.%31/cb")?.contains("IP address") == true)
        #expect(apple.problem(with: "https://intranet%2D1/cb")?.contains("fully qualified") == true)
        #expect(ReturnURLPolicy(allowLoopback: true).problem(with: "http://127.0.0.%31:3000/cb") == nil)
    }
}
