import MockAppleIDServer

/// What `serve --https-port` and `tls init` print about the local CA: its files and fingerprint,
/// how each runtime comes to trust it without code, the hosts line, and a Docker Compose sketch.
struct TrustInstructions {
    let files: LocalCertificateAuthorityFiles
    let fingerprint: String
    let httpsPort: Int

    init(authority: LocalCertificateAuthority, httpsPort: Int) throws {
        guard let files = authority.files else { throw CommandError("the certificate authority has no files to point clients at") }
        self.files = files
        fingerprint = try authority.fingerprint
        self.httpsPort = httpsPort
    }

    var text: String {
        let ca = files.certificate
        let bundle = files.bundle
        let roots = files.systemRoots.map { "the system roots of \($0) + this CA" } ?? "this CA only: no system roots file was found"
        return """
              CA:          \(ca)
              SHA-256:     \(fingerprint)
              bundle:      \(bundle) (\(roots))
              key:         \(files.privateKey) (mode 0600; keep it private)

            Trust the CA, once per runtime, without code changes:
            \(Self.runtimes.map { "  \($0.runtime + ":" + String(repeating: " ", count: max(1, 22 - $0.runtime.count)))\($0.trust(ca, bundle, portSuffix))" }.joined(separator: "\n"))

            Point Apple's host names at this machine (this takes Apple ID over for the whole machine; remove it when done):
              /etc/hosts:            127.0.0.1 \(AppleHostNames.identity) \(AppleHostNames.cdn)
              Unmodified relying parties use port 443: serve --https-port 443 (root or CAP_NET_BIND_SERVICE outside containers).

            Docker Compose (make the CA once: docker compose run --rm appleid mock-appleid tls init --dir /tls):
              services:
                appleid:
                  image: your-image-with-mock-appleid
                  command: [mock-appleid, serve, --host, 0.0.0.0, --https-port, "443", --tls-dir, /tls]
                  volumes: ["./mock-appleid-tls:/tls"]
                  networks:
                    default:
                      aliases: [\(AppleHostNames.identity), \(AppleHostNames.cdn)]
                relying-party:
                  environment:
                    REQUESTS_CA_BUNDLE: /tls/ca-bundle.pem
                    SSL_CERT_FILE: /tls/ca-bundle.pem
                    NODE_EXTRA_CA_CERTS: /tls/ca.pem
                  volumes: ["./mock-appleid-tls/ca.pem:/tls/ca.pem:ro", "./mock-appleid-tls/ca-bundle.pem:/tls/ca-bundle.pem:ro"]
              (other containers reach the admin API only with serve --admin-token)
            """
    }

    private var portSuffix: String { httpsPort == 443 ? "" : ":\(httpsPort)" }

    /// How each runtime trusts the CA (given its certificate, the bundle and the port suffix): the one list
    /// behind what `serve` and `tls init` print and the table in docs/https.md (`tls trust-table`).
    static let runtimes: [(runtime: String, trust: @Sendable (_ ca: String, _ bundle: String, _ port: String) -> String)] = [
        ("Python requests", { _, bundle, _ in "export REQUESTS_CA_BUNDLE=\(bundle)" }),
        ("OpenSSL users (Python ssl and urllib, Ruby, curl, Go on Linux)", { _, bundle, _ in "export SSL_CERT_FILE=\(bundle)" }),
        ("PHP (curl, Guzzle: Socialite, league/oauth2-apple)", { _, bundle, _ in "curl.cainfo=\(bundle) and openssl.cafile=\(bundle) in php.ini" }),
        ("Node.js", { ca, _, _ in "export NODE_EXTRA_CA_CERTS=\(ca)" }),
        ("Java 9+ (as the JDK's owner)", { ca, _, _ in "keytool -importcert -noprompt -cacerts -storepass changeit -alias mock-appleid -file \(ca)" }),
        ("Chromium on Linux (NSS)", { ca, _, _ in "certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n mock-appleid -i \(ca)" }),
        ("curl", { ca, _, port in "curl --cacert \(ca) https://\(AppleHostNames.identity)\(port)/auth/keys" }),
    ]

    /// ``runtimes`` as a Markdown table, for the CA in the default folder and port 443.
    static var markdownTable: String {
        let folder = "~/.mock-appleid/tls"
        return (["| runtime | trust the CA |", "|---|---|"] + runtimes.map { runtime in
            "| \(runtime.runtime) | `\(runtime.trust("\(folder)/ca.pem", "\(folder)/ca-bundle.pem", ""))` |"
        }).joined(separator: "\n")
    }
}
