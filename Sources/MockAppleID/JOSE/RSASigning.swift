import Synchronization
import SystemLibcrypto

/// The library that makes RS256 signatures, chosen for the whole process before its keys are read.
///
/// RSASSA-PKCS1-v1_5 is deterministic, so both make the same bytes; libcrypto (OpenSSL 3, found on
/// Linux at run time) made them in about half the CPU time of swift-crypto on some of the machines the
/// benchmarks ran on, and in a little more on others, so the automatic choice times both on the first key
/// and keeps the faster (``measured``). swift-crypto (BoringSSL, built in) signs wherever libcrypto is
/// missing, and in place of a libcrypto that fails unless libcrypto was asked for by name.
public enum RSASigning {
    /// Where RS256 signatures come from.
    public enum Library: String, Sendable, CaseIterable, CustomStringConvertible {
        /// The system's OpenSSL 3 libcrypto.
        case libcrypto
        /// swift-crypto, built into the binary.
        case swiftCrypto = "swift-crypto"

        public var description: String {
            switch self {
            case .libcrypto: return "libcrypto (\(Libcrypto.shared?.version ?? "not found"))"
            case .swiftCrypto: return "swift-crypto"
            }
        }
    }

    /// Why a library cannot be used.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// How the library is chosen: named by ``use(_:)``, or automatically (libcrypto where the system has it and it
    /// signs faster than swift-crypto).
    enum Choice: Equatable {
        /// libcrypto where it loads and is the faster, given each key as the key is read.
        case automatic
        /// libcrypto where it loads and is the faster, given each key on a background thread once the key first
        /// signs (``readyLibcryptoInBackground()``).
        case automaticInBackground
        /// The library ``use(_:)`` named: a key libcrypto cannot use is then an error, not a fallback.
        case named(Library)
    }

    private static let chosen = Mutex<Choice>(.automatic)

    /// How keys read from now on get their library.
    static var choice: Choice { chosen.withLock { $0 } }

    /// The library keys read from now on sign with: the one ``use(_:)`` named; else the faster by ``measured``, or
    /// libcrypto when the system has it and nothing was timed yet (after ``readyLibcryptoInBackground()``, once each
    /// key's copy is ready). Reading it loads libcrypto unless a library was named; ``choiceDescription`` does not.
    public static var library: Library {
        if case let .named(library) = choice { return library }
        guard Libcrypto.shared != nil else { return .swiftCrypto }
        return measured?.faster ?? .libcrypto
    }

    /// What signs RS256, said without loading libcrypto: under ``readyLibcryptoInBackground()``, libcrypto is
    /// looked for only when a key first signs (a start-up never waits or competes for it), and what was found
    /// is said in the log then.
    public static var choiceDescription: String {
        if choice == .automaticInBackground {
            return "the faster of libcrypto and swift-crypto, timed when an RS256 key first signs (the log says which; "
                + "swift-crypto until then, and where libcrypto cannot be loaded)"
        }
        return library.description
    }

    /// Makes keys read from now on sign with `library`; keys already read keep theirs.
    public static func use(_ library: Library) throws(Unavailable) {
        if library == .libcrypto, Libcrypto.shared == nil {
            throw Unavailable(description: "libcrypto was asked for, but no OpenSSL 3 libcrypto (libcrypto.so.3) could be loaded")
        }
        chosen.withLock { $0 = .named(library) }
    }

    /// Keeps the automatic choice, but loads libcrypto and gives it each key read from now on in the
    /// background, when the key first signs (or ``SigningKey/settled()`` is awaited), so that a server's
    /// start-up neither waits nor competes for libcrypto and a key only published costs it nothing;
    /// swift-crypto signs with a key, the same bytes, until its copy is ready.
    /// Only Linux looks for libcrypto: elsewhere this does nothing, and swift-crypto signs.
    public static func readyLibcryptoInBackground() {
        #if os(Linux)
        chosen.withLock { $0 = .automaticInBackground }
        #endif
    }
}
