import Crypto
import CryptoExtras
import Foundation
import MockAppleID

// `signing-rate RSA_PEM EC_PEM [SECONDS]`: signs an identity-token-sized input in a loop on one
// thread and prints the milliseconds one RS256 and one ES256 signature take with swift-crypto (the
// reference a flow's server CPU is compared with), and one RS256 signature through the core's
// SigningKey with libcrypto, when the system has it. Which of the two `--rsa-signer auto` keeps is read from a
// server's log, which says what it timed.

func millisecondsPerSignature(seconds: Double, _ sign: () throws -> Void) rethrows -> Double {
    for _ in 0..<20 { try sign() }
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    while (clock.now - start) < .milliseconds(Int(seconds * 1000)) {
        try sign()
        count += 1
    }
    let elapsed = clock.now - start
    let total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return total * 1000 / Double(count)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3,
      let rsaPEM = try? String(contentsOfFile: arguments[1], encoding: .utf8),
      let ecPEM = try? String(contentsOfFile: arguments[2], encoding: .utf8)
else {
    FileHandle.standardError.write(Data("usage: signing-rate RSA_PEM EC_PEM [SECONDS]\n".utf8))
    exit(2)
}
let seconds = arguments.count > 3 ? Double(arguments[3]) ?? 2 : 2
let input = Data(repeating: 0x61, count: 700)
let rsa = try _RSA.Signing.PrivateKey(pemRepresentation: rsaPEM)
let ec = try P256.Signing.PrivateKey(pemRepresentation: ecPEM)
let rs256 = try millisecondsPerSignature(seconds: seconds) { _ = try rsa.signature(for: input, padding: .insecurePKCS1v1_5) }
let es256 = try millisecondsPerSignature(seconds: seconds) { _ = try ec.signature(for: input) }
print(String(format: "rs256_ms %.4f", rs256))
if (try? RSASigning.use(.libcrypto)) != nil {
    let key = try SigningKey(kid: "rate", algorithm: .rs256, pem: rsaPEM)
    let libcrypto = try millisecondsPerSignature(seconds: seconds) { _ = try key.sign(input) }
    print(String(format: "rs256_libcrypto_ms %.4f", libcrypto))
}
print(String(format: "es256_ms %.4f", es256))
