import Synchronization

/// An RSA private key held by libcrypto, signing SHA-256 digests with RSASSA-PKCS1-v1_5 (RS256).
///
/// Signing contexts are made ready once (key, padding, digest) and kept for the next signature, at most
/// ``keptContexts`` of them: libcrypto allows one key in several contexts on several threads at once, but
/// a context on one thread at a time.
public final class LibcryptoRSAKey: Sendable {
    /// Ready contexts kept between signatures; a burst on more threads makes more, freed after use.
    public static let keptContexts = 16

    private let library: Libcrypto
    private nonisolated(unsafe) let key: OpaquePointer
    private let idle = Mutex<[ContextPointer]>([])
    /// The signature's length in bytes: the modulus's.
    public let signatureSize: Int

    /// An `EVP_PKEY_CTX` moved between threads, never used on two at once.
    struct ContextPointer: @unchecked Sendable { let pointer: OpaquePointer }

    /// Reads a DER private key (PKCS#1 or PKCS#8); `nil` when libcrypto cannot read it as a key.
    public init?(der: [UInt8], library: Libcrypto) {
        var read: OpaquePointer?
        der.withUnsafeBufferPointer { bytes in
            var cursor = bytes.baseAddress
            read = library.readPrivateKey(nil, &cursor, bytes.count)
        }
        guard let read else {
            library.clearErrors()
            return nil
        }
        let size = Int(library.keySize(read))
        guard size > 0 else {
            library.freeKey(read)
            library.clearErrors()
            return nil
        }
        self.library = library
        key = read
        signatureSize = size
    }

    deinit {
        for context in idle.withLock({ $0 }) { library.freeKeyContext(context.pointer) }
        library.freeKey(key)
    }

    /// The RS256 signature of the message whose SHA-256 is `digest`; `nil` if libcrypto fails or `digest`
    /// is not 32 bytes.
    public func sign(sha256 digest: [UInt8]) -> [UInt8]? {
        guard digest.count == 32, let context = takeContext() else { return nil }
        var length = signatureSize
        let signature = [UInt8](unsafeUninitializedCapacity: signatureSize) { buffer, initialized in
            let signed = digest.withUnsafeBufferPointer {
                library.sign(context.pointer, buffer.baseAddress, &length, $0.baseAddress, $0.count) == 1
            }
            initialized = signed && length <= signatureSize ? length : 0
        }
        guard signature.count == signatureSize else {
            library.freeKeyContext(context.pointer)
            library.clearErrors()
            return nil
        }
        giveBack(context)
        return signature
    }

    /// A kept context, or a new one made ready to sign.
    func takeContext() -> ContextPointer? {
        if let kept = idle.withLock({ $0.popLast() }) { return kept }
        guard let context = library.newKeyContext(key, nil) else {
            library.clearErrors()
            return nil
        }
        guard library.signInit(context) == 1, library.setRSAPadding(context, Self.pkcs1Padding) == 1,
              library.setSignatureDigest(context, library.sha256) == 1
        else {
            library.freeKeyContext(context)
            library.clearErrors()
            return nil
        }
        return ContextPointer(pointer: context)
    }

    /// Keeps `context` for the next signature, or frees it when ``keptContexts`` are kept already.
    func giveBack(_ context: ContextPointer) {
        let kept = idle.withLock { contexts in
            guard contexts.count < Self.keptContexts else { return false }
            contexts.append(context)
            return true
        }
        if !kept { library.freeKeyContext(context.pointer) }
    }

    /// How many ready contexts are kept now.
    var keptContextCount: Int { idle.withLock { $0.count } }

    /// `RSA_PKCS1_PADDING`.
    private static let pkcs1Padding: Int32 = 1
}
