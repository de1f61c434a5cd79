import Crypto
import CryptoExtras
import Foundation
import Logging
import Synchronization
import SystemLibcrypto

/// What the automatic choice of RS256 signer measured: one signature's time with each library, taken with the first
/// RSA key libcrypto was given in the process, and the library kept, the faster. Both make the same bytes; which is
/// faster depends on the machine (libcrypto took about half swift-crypto's time on some of the machines the benchmarks
/// ran on, and 1.05 × on others).
public struct RSASignerTiming: Sendable, Equatable, CustomStringConvertible {
    /// One libcrypto signature.
    public let libcrypto: Duration
    /// One swift-crypto signature.
    public let swiftCrypto: Duration

    public init(libcrypto: Duration, swiftCrypto: Duration) {
        self.libcrypto = libcrypto
        self.swiftCrypto = swiftCrypto
    }

    /// The faster library (libcrypto on a tie): the one ``RSASigning`` keeps when it chooses.
    public var faster: RSASigning.Library { libcrypto <= swiftCrypto ? .libcrypto : .swiftCrypto }

    public var description: String {
        "timed at \(Self.milliseconds(libcrypto)) ms a signature with libcrypto and \(Self.milliseconds(swiftCrypto)) ms with swift-crypto: "
            + "\(faster.rawValue) signs"
    }

    private static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.3f", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000)
    }

    /// Rounds of ``signaturesPerRound`` signatures with each library, taken in turn so that both see the machine alike.
    static let rounds = 5
    static let signaturesPerRound = 3

    /// Times `copy` (libcrypto's) against `key` (swift-crypto's): each library's best round, per signature, so that a
    /// round another thread slowed down does not decide. About 30 signatures, once a process.
    static func measure(libcrypto copy: LibcryptoRSAKey, swiftCrypto key: _RSA.Signing.PrivateKey) -> RSASignerTiming {
        let input = Data(repeating: 0x61, count: 700)
        let digest = Array(SHA256.hash(data: input))
        let clock = ContinuousClock()
        func best(_ sign: () -> Void) -> Duration {
            let elapsed = clock.measure { for _ in 0..<signaturesPerRound { sign() } }
            return elapsed / signaturesPerRound
        }
        var fastest = (libcrypto: Duration.seconds(1), swiftCrypto: Duration.seconds(1))
        for _ in 0..<rounds {
            fastest.libcrypto = min(fastest.libcrypto, best { _ = copy.sign(sha256: digest) })
            fastest.swiftCrypto = min(fastest.swiftCrypto, best { _ = try? key.signature(for: input, padding: .insecurePKCS1v1_5) })
        }
        return RSASignerTiming(libcrypto: fastest.libcrypto, swiftCrypto: fastest.swiftCrypto)
    }
}

extension RSASigning {
    private static let timing = Mutex<RSASignerTiming?>(nil)

    /// What the automatic choice measured, once an RSA key was given to libcrypto under it; nil before (and when it
    /// never was: a library named before any key was read, or libcrypto could not be loaded).
    public static var measured: RSASignerTiming? { timing.withLock { $0 } }

    /// Whether the automatic choice keeps libcrypto's `copy` of `key`: the process's timing, measured with this key
    /// when it is the first, says libcrypto is the faster. With `announcing` (a server's background choice, whose
    /// banner could not say it), the timing is said in the log; an embedding program's choice is its own business.
    static func automaticKeeps(_ copy: LibcryptoRSAKey, of key: _RSA.Signing.PrivateKey, announcing: Bool = false) -> Bool {
        if let known = measured { return known.faster == .libcrypto }
        let timed = RSASignerTiming.measure(libcrypto: copy, swiftCrypto: key)
        let (kept, first) = timing.withLock { stored -> (RSASignerTiming, Bool) in
            if let stored { return (stored, false) }
            stored = timed
            return (timed, true)
        }
        if first, announcing { Logger(label: "mock-appleid").notice("RS256: \(kept)") }
        return kept.faster == .libcrypto
    }

    /// Sets (or with nil forgets) what the automatic choice measured, so that a test decides which library is faster.
    static func assumeTiming(_ assumed: RSASignerTiming?) { timing.withLock { $0 = assumed } }
}
