import Crypto
import CryptoExtras
import Foundation
@testable import MockAppleID
@testable import SystemLibcrypto
import Testing

// Serialized: its tests choose the process's RS256 library (no other suite does).
@Suite("RS256 from libcrypto and swift-crypto", .serialized)
struct RSASigningTests {
    static let shippedKeys = ["mRS1a8XkPq", "mRS2bT4nWz", "mRS3cY7jLd"]

    /// A timing in which `library` is the faster, for the automatic choice to follow.
    static func timing(faster library: RSASigning.Library) -> RSASignerTiming {
        library == .libcrypto ? RSASignerTiming(libcrypto: .microseconds(300), swiftCrypto: .microseconds(600))
            : RSASignerTiming(libcrypto: .microseconds(630), swiftCrypto: .microseconds(600))
    }

    static func keys(signedBy library: RSASigning.Library) throws -> [SigningKey] {
        try RSASigning.use(library)
        return try shippedKeys.map { kid in
            try SigningKey(kid: kid, algorithm: .rs256, pem: Fixtures.file("Keys/signing-\(kid).pem"))
        }
    }

    #if os(Linux)
    @Test("with every shipped key, libcrypto's signatures are swift-crypto's byte for byte (PKCS#1 v1.5 is deterministic)")
    func librariesAgree() throws {
        // Ends on libcrypto, the default where it loads.
        let builtIn = try Self.keys(signedBy: .swiftCrypto)
        let system = try Self.keys(signedBy: .libcrypto)
        #expect(builtIn.map(\.rsaLibrary) == Array(repeating: .swiftCrypto, count: 3))
        #expect(system.map(\.rsaLibrary) == Array(repeating: .libcrypto, count: 3))
        for (ours, theirs) in zip(system, builtIn) {
            for size in [0, 1, 55, 700, 8192] {
                let input = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
                let signature = try ours.sign(input)
                #expect(signature.count == 256)
                #expect(signature == (try theirs.sign(input)), "\(ours.kid), \(size) bytes")
                #expect(theirs.isValidSignature(signature, for: input))
                #expect(!theirs.isValidSignature(signature, for: input + Data([0])))
            }
        }
    }

    @Test("read with libcrypto readied in the background, keys are copied only once they sign, sign at once and switch to libcrypto when their copies settle, the same bytes",
          .timeLimit(.minutes(1)))
    func copiesMadeInTheBackground() async throws {
        let input = Data("signed before and after the copies settle".utf8)
        let expected = try Self.keys(signedBy: .swiftCrypto).map { try $0.sign(input) }
        RSASigning.assumeTiming(Self.timing(faster: .libcrypto))
        RSASigning.readyLibcryptoInBackground()
        defer { _ = try? RSASigning.use(.libcrypto) }
        let keys = try Self.shippedKeys.map { kid in
            try SigningKey(kid: kid, algorithm: .rs256, pem: Fixtures.file("Keys/signing-\(kid).pem"))
        }
        #expect(keys.map(\.libcryptoCopyStarted) == [false, false, false])
        #expect(try keys.map { try $0.sign(input) } == expected)
        #expect(keys.map(\.libcryptoCopyStarted) == [true, true, true])
        for key in keys { await key.settled() }
        #expect(keys.map(\.rsaLibrary) == Array(repeating: .libcrypto, count: 3))
        #expect(try keys.map { try $0.sign(input) } == expected)
    }

    @Test("read with libcrypto readied in the background, a key that has not signed is copied when its library is awaited, and only that key",
          .timeLimit(.minutes(1)))
    func copyMadeWhenAwaited() async throws {
        RSASigning.assumeTiming(Self.timing(faster: .libcrypto))
        RSASigning.readyLibcryptoInBackground()
        defer { _ = try? RSASigning.use(.libcrypto) }
        let keys = try Self.shippedKeys.map { kid in
            try SigningKey(kid: kid, algorithm: .rs256, pem: Fixtures.file("Keys/signing-\(kid).pem"))
        }
        await keys[1].settled()
        #expect(keys.map(\.rsaLibrary) == [.swiftCrypto, .libcrypto, .swiftCrypto])
        // Asking which library a key signs with starts nothing.
        #expect(keys.map(\.libcryptoCopyStarted) == [false, true, false])
    }

    @Test("the automatic choice keeps libcrypto's copies only where libcrypto timed faster; either way the same bytes",
          .timeLimit(.minutes(1)), arguments: RSASigning.Library.allCases)
    func automaticChoiceFollowsTheTiming(faster: RSASigning.Library) async throws {
        let input = Data("signed by the faster library".utf8)
        let expected = try Self.keys(signedBy: .swiftCrypto).map { try $0.sign(input) }
        RSASigning.assumeTiming(Self.timing(faster: faster))
        defer { _ = try? RSASigning.use(.libcrypto) }
        RSASigning.readyLibcryptoInBackground()
        let background = try Self.shippedKeys.map { kid in try SigningKey(kid: kid, algorithm: .rs256, pem: Fixtures.file("Keys/signing-\(kid).pem")) }
        for key in background { await key.settled() }
        #expect(background.map(\.rsaLibrary) == Array(repeating: faster, count: 3))
        #expect(try background.map { try $0.sign(input) } == expected)
        #expect(RSASigning.library == faster)
        #expect(RSASigning.choiceDescription.hasPrefix("the faster of libcrypto and swift-crypto"))
    }

    @Test("the timing signs with both libraries on the first key and is kept for the process")
    func timingIsMeasuredOnce() throws {
        try RSASigning.use(.libcrypto)
        RSASigning.assumeTiming(nil)
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: Fixtures.file("Keys/signing-\(Self.shippedKeys[0]).pem"))
        let library = try #require(Libcrypto.shared)
        let copy = try #require(LibcryptoRSAKey(der: Array(key.derRepresentation), library: library))
        let kept = RSASigning.automaticKeeps(copy, of: key)
        let timing = try #require(RSASigning.measured)
        #expect(timing.libcrypto > .zero && timing.libcrypto < .milliseconds(100))
        #expect(timing.swiftCrypto > .zero && timing.swiftCrypto < .milliseconds(100))
        #expect(kept == (timing.faster == .libcrypto))
        #expect(timing.description.contains("ms a signature with libcrypto"))
        // Kept: the second key does not time again.
        #expect(RSASigning.automaticKeeps(copy, of: key) == kept && RSASigning.measured == timing)
    }

    @Test("a burst holding more signing contexts than are kept: only the kept number stay when they are given back, and the key still signs right")
    func contextsBeyondTheKeptOnes() throws {
        let library = try #require(Libcrypto.shared)
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: Fixtures.file("Keys/signing-\(Self.shippedKeys[0]).pem"))
        let copy = try #require(LibcryptoRSAKey(der: Array(key.derRepresentation), library: library))
        let held = (0..<LibcryptoRSAKey.keptContexts + 4).compactMap { _ in copy.takeContext() }
        #expect(held.count == LibcryptoRSAKey.keptContexts + 4)
        #expect(Set(held.map(\.pointer)).count == held.count)
        for context in held { copy.giveBack(context) }
        #expect(copy.keptContextCount == LibcryptoRSAKey.keptContexts)
        let input = Data("signed after the burst".utf8)
        let signature = try #require(copy.sign(sha256: Array(SHA256.hash(data: input))))
        #expect(key.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input, padding: .insecurePKCS1v1_5))
        #expect(copy.keptContextCount == LibcryptoRSAKey.keptContexts)
    }

    @Test("one libcrypto key signs from many threads at once, each signature right")
    func concurrentSigning() async throws {
        let key = try #require(try Self.keys(signedBy: .libcrypto).first)
        #expect(key.rsaLibrary == .libcrypto)
        let wrong = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<40 {
                        let input = Data("task \(task) round \(round)".utf8)
                        if !key.isValidSignature(try key.sign(input), for: input) { wrong += 1 }
                    }
                    return wrong
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
    #else
    @Test("libcrypto is looked for on Linux only: asking for it elsewhere is refused, and swift-crypto signs")
    func libcryptoIsLinuxOnly() throws {
        #expect(throws: RSASigning.Unavailable.self) { try RSASigning.use(.libcrypto) }
        #expect(RSASigning.library == .swiftCrypto)
        #expect(try Self.keys(signedBy: .swiftCrypto).allSatisfy { $0.rsaLibrary == .swiftCrypto })
    }
    #endif
}
