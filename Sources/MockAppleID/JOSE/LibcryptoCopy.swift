import Crypto
import CryptoExtras
import Dispatch
import Foundation
import Logging
import Synchronization
import SystemLibcrypto

/// libcrypto's copy of one RSA signing key: made at once, or on one of Dispatch's threads when it is first
/// wanted, so that reading a key does not wait for libcrypto to load and read it (a few milliseconds for a
/// process's first), and a key that never signs (one only published) costs libcrypto nothing. Until the copy
/// is ready, and for good if libcrypto cannot use the key, swift-crypto signs: RSASSA-PKCS1-v1_5 is
/// deterministic, so the bytes are the same either way. A key that a loaded libcrypto refuses in the
/// background is named in a warning, since no caller is there to be told. Under the automatic choice, a copy
/// is kept only when libcrypto signs faster than swift-crypto on this machine (``RSASigning/measured``).
final class LibcryptoCopy: Sendable {
    /// Where the copy stands, shared with the work that makes it.
    private final class Outcome: Sendable {
        enum State {
            /// Not started: made in the background on the first ``LibcryptoCopy/ready`` or
            /// ``LibcryptoCopy/settled()``; the key's `kid` names it should libcrypto refuse it.
            case notStarted(_RSA.Signing.PrivateKey, kid: String)
            /// Being made; these wait for it.
            case making([CheckedContinuation<Void, Never>])
            /// The copy, or `nil` when libcrypto is missing or cannot use the key.
            case made(LibcryptoRSAKey?)
        }

        let state: Mutex<State>

        init(_ state: State) { self.state = Mutex(state) }

        /// Starts making the copy on one of Dispatch's threads (never on the Swift concurrency executor,
        /// which a server may have handed to its event loops) if nobody has yet.
        func start() {
            let wanted: (key: _RSA.Signing.PrivateKey, kid: String)? = state.withLock { state in
                guard case let .notStarted(key, kid) = state else { return nil }
                state = .making([])
                return (key, kid)
            }
            guard let wanted else { return }
            DispatchQueue.global().async {
                _ = LibcryptoCopy.sayWhatWasFound
                // Once swift-crypto timed faster, no key is given to libcrypto (nor is that a key libcrypto refused).
                let skipped = RSASigning.measured?.faster == .swiftCrypto
                let made = skipped ? nil : LibcryptoCopy.make(of: wanted.key)
                let copy = made.flatMap { RSASigning.automaticKeeps($0, of: wanted.key, announcing: true) ? $0 : nil }
                if !skipped, made == nil, let library = Libcrypto.shared {
                    Logger(label: "mock-appleid").warning(
                        "libcrypto (\(library.version)) could not use RSA key \(wanted.kid): swift-crypto signs with it, the same signatures, slower")
                }
                self.finish(with: copy)
            }
        }

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

    /// Looks for libcrypto, once, and says in the log what was found: the first copy made in the background
    /// does this (``RSASigning/choiceDescription`` could not say it without loading libcrypto).
    private static let sayWhatWasFound: Void = {
        let logger = Logger(label: "mock-appleid")
        if let library = Libcrypto.shared {
            logger.notice("RS256: libcrypto (\(library.version)) loaded; timed against swift-crypto on the first key it is given, the faster signs")
        } else {
            logger.notice("RS256: no OpenSSL 3 libcrypto (libcrypto.so.3) could be loaded; swift-crypto signs")
        }
    }()

    /// A copy made in the background the first time it is wanted: when the key first signs, or
    /// ``settled()`` is awaited.
    init(whenWantedOf key: _RSA.Signing.PrivateKey, kid: String) {
        outcome = Outcome(.notStarted(key, kid: kid))
    }

    /// A copy made before this returns; `nil` when libcrypto is missing or cannot use `key`, or (`keepingTheFaster`)
    /// when swift-crypto signs faster on this machine.
    init?(of key: _RSA.Signing.PrivateKey, keepingTheFaster: Bool) {
        if keepingTheFaster, RSASigning.measured?.faster == .swiftCrypto { return nil }
        guard let copy = Self.make(of: key), !keepingTheFaster || RSASigning.automaticKeeps(copy, of: key) else { return nil }
        outcome = Outcome(.made(copy))
    }

    /// Whether the copy has been started (by a signature or ``settled()``, or made at once); it may still be
    /// being made.
    var started: Bool {
        outcome.state.withLock { state in
            if case .notStarted = state { return false }
            return true
        }
    }

    /// The copy, once made; `nil` until then and when libcrypto could not use the key. Starts nothing.
    var current: LibcryptoRSAKey? { made ?? nil }

    /// The copy to sign with: ``current``, after starting the copy if nobody has yet.
    var ready: LibcryptoRSAKey? {
        if let made { return made }
        outcome.start()
        return nil
    }

    /// The outcome once the copy is made (`.some(nil)` when libcrypto could not use the key); `nil` before.
    private var made: LibcryptoRSAKey?? {
        outcome.state.withLock { state in
            if case let .made(copy) = state { return .some(copy) }
            return nil
        }
    }

    /// Waits until the copy is made or known to be impossible, starting it if nobody has yet.
    func settled() async {
        outcome.start()
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
