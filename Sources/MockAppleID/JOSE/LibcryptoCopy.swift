import Crypto
import CryptoExtras
import Dispatch
import Foundation
import Synchronization
import SystemLibcrypto

/// libcrypto's copy of one RSA signing key: made at once, or on one of Dispatch's threads so that reading a
/// key does not wait for libcrypto to load and read it (a few milliseconds for a process's first). Until the copy is
/// ready, and for good if libcrypto cannot use the key, swift-crypto signs: RSASSA-PKCS1-v1_5 is
/// deterministic, so the bytes are the same either way.
final class LibcryptoCopy: Sendable {
    /// Where the copy stands, shared with the work that makes it.
    private final class Outcome: Sendable {
        enum State {
            /// Being made; these wait for it.
            case making([CheckedContinuation<Void, Never>])
            /// The copy, or `nil` when libcrypto is missing or cannot use the key.
            case made(LibcryptoRSAKey?)
        }

        let state: Mutex<State>

        init(_ state: State) { self.state = Mutex(state) }

        func finish(with copy: LibcryptoRSAKey?) {
            let waiting = state.withLock { state in
                defer { state = .made(copy) }
                guard case let .making(waiting) = state else { return [CheckedContinuation<Void, Never>]() }
                return waiting
            }
            for waiter in waiting { waiter.resume() }
        }
    }

    private let outcome: Outcome

    /// A copy made on one of Dispatch's threads (never on the Swift concurrency executor, which a server
    /// may have handed to its event loops).
    init(inBackgroundOf key: _RSA.Signing.PrivateKey) {
        let outcome = Outcome(.making([]))
        self.outcome = outcome
        DispatchQueue.global().async { outcome.finish(with: Self.make(of: key)) }
    }

    /// A copy made before this returns; `nil` when libcrypto is missing or cannot use `key`.
    init?(of key: _RSA.Signing.PrivateKey) {
        guard let copy = Self.make(of: key) else { return nil }
        outcome = Outcome(.made(copy))
    }

    /// The copy, once made; `nil` while it is being made and when libcrypto could not use the key.
    var ready: LibcryptoRSAKey? {
        outcome.state.withLock { state in
            if case let .made(copy) = state { return copy }
            return nil
        }
    }

    /// Waits until the copy is made or known to be impossible.
    func settled() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let made = outcome.state.withLock { state in
                guard case var .making(waiting) = state else { return true }
                waiting.append(waiter)
                state = .making(waiting)
                return false
            }
            if made { waiter.resume() }
        }
    }

    /// Reads `key` into libcrypto. The copy's first signature, checked with swift-crypto's public key,
    /// proves it is the same key (and readies it before threads share it).
    private static func make(of key: _RSA.Signing.PrivateKey) -> LibcryptoRSAKey? {
        guard let library = Libcrypto.shared else { return nil }
        let probe = Data("mock-appleid".utf8)
        guard let copy = LibcryptoRSAKey(der: Array(key.derRepresentation), library: library),
              let signature = copy.sign(sha256: Array(SHA256.hash(data: probe))),
              key.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: probe,
                                             padding: .insecurePKCS1v1_5)
        else { return nil }
        return copy
    }
}
