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
              Python requests:       export REQUESTS_CA_BUNDLE=\(bundle)
              OpenSSL (Python ssl, Ruby, curl, Go on Linux): export SSL_CERT_FILE=\(bundle)
              PHP (curl, Guzzle):    curl.cainfo=\(bundle) and openssl.cafile=\(bundle) in php.ini
              Node.js:               export NODE_EXTRA_CA_CERTS=\(ca)
              Java 9+:               keytool -importcert -noprompt -cacerts -storepass changeit -alias mock-appleid -file \(ca)  (as the JDK's owner)
              Chromium (Linux NSS):  certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n mock-appleid -i \(ca)
              curl:                  curl --cacert \(ca) https://\(AppleHostNames.identity)\(portSuffix)/auth/keys

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
}
