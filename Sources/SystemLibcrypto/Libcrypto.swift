#if os(Linux)
import Glibc
#endif

/// OpenSSL 3's libcrypto, found on the system at run time: the few functions that make an RS256 signature.
///
/// It is opened with `dlopen`, never linked, so the package builds where no OpenSSL headers or libraries
/// are installed, and the binary still runs where libcrypto is missing: ``shared`` is then `nil` and
/// swift-crypto signs instead. Only Linux looks for it (macOS ships LibreSSL under another name).
public final class Libcrypto: @unchecked Sendable {
    /// The system's libcrypto, opened once; `nil` when none of version 3 or later can be loaded.
    public static let shared: Libcrypto? = Libcrypto()

    /// OpenSSL's own version text, such as `OpenSSL 3.0.19 27 Jan 2026`.
    public let version: String

    // The functions' C types, as OpenSSL 3 declares them (`long` and `size_t` are `Int` on 64-bit Linux).
    typealias ReadPrivateKey = @convention(c) (
        UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, Int
    ) -> OpaquePointer?
    typealias FreeKey = @convention(c) (OpaquePointer?) -> Void
    typealias KeySize = @convention(c) (OpaquePointer?) -> Int32
    typealias NewKeyContext = @convention(c) (OpaquePointer?, OpaquePointer?) -> OpaquePointer?
    typealias FreeKeyContext = @convention(c) (OpaquePointer?) -> Void
    typealias ContextStep = @convention(c) (OpaquePointer?) -> Int32
    typealias ContextSetting = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias ContextDigest = @convention(c) (OpaquePointer?, OpaquePointer?) -> Int32
    typealias Digest = @convention(c) () -> OpaquePointer?
    typealias Sign = @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?, UnsafePointer<UInt8>?, Int
    ) -> Int32
    typealias ClearErrors = @convention(c) () -> Void

    /// `OPENSSL_INIT_NO_ATEXIT`, from OpenSSL 3's `<openssl/crypto.h>`.
    static let noAtExit: UInt64 = 0x0008_0000

    let readPrivateKey: ReadPrivateKey
    let freeKey: FreeKey
    let keySize: KeySize
    let newKeyContext: NewKeyContext
    let freeKeyContext: FreeKeyContext
    let signInit: ContextStep
    let setRSAPadding: ContextSetting
    let setSignatureDigest: ContextDigest
    let sha256: OpaquePointer
    let sign: Sign
    let clearErrors: ClearErrors

    private init?() {
        #if os(Linux)
        guard let handle = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL) else { return nil }
        func function<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        typealias VersionNumber = @convention(c) () -> UInt
        typealias VersionText = @convention(c) (Int32) -> UnsafePointer<CChar>?
        typealias Initialize = @convention(c) (UInt64, OpaquePointer?) -> Int32
        guard let versionNumber = function("OpenSSL_version_num", as: VersionNumber.self), versionNumber() >= 0x3000_0000,
              // First, and without the clean-up OpenSSL would otherwise register with `atexit`: keys are
              // read on background threads, which may still be inside libcrypto when the process exits.
              let initialize = function("OPENSSL_init_crypto", as: Initialize.self), initialize(Self.noAtExit, nil) == 1,
              let versionText = function("OpenSSL_version", as: VersionText.self), let text = versionText(0),
              let readPrivateKey = function("d2i_AutoPrivateKey", as: ReadPrivateKey.self),
              let freeKey = function("EVP_PKEY_free", as: FreeKey.self),
              let keySize = function("EVP_PKEY_get_size", as: KeySize.self),
              let newKeyContext = function("EVP_PKEY_CTX_new", as: NewKeyContext.self),
              let freeKeyContext = function("EVP_PKEY_CTX_free", as: FreeKeyContext.self),
              let signInit = function("EVP_PKEY_sign_init", as: ContextStep.self),
              let setRSAPadding = function("EVP_PKEY_CTX_set_rsa_padding", as: ContextSetting.self),
              let setSignatureDigest = function("EVP_PKEY_CTX_set_signature_md", as: ContextDigest.self),
              let sha256Function = function("EVP_sha256", as: Digest.self), let sha256 = sha256Function(),
              let sign = function("EVP_PKEY_sign", as: Sign.self),
              let clearErrors = function("ERR_clear_error", as: ClearErrors.self)
        else {
            dlclose(handle)
            return nil
        }
        // The handle stays open for the process's life: keys read through it may live as long.
        version = String(cString: text)
        self.readPrivateKey = readPrivateKey
        self.freeKey = freeKey
        self.keySize = keySize
        self.newKeyContext = newKeyContext
        self.freeKeyContext = freeKeyContext
        self.signInit = signInit
        self.setRSAPadding = setRSAPadding
        self.setSignatureDigest = setSignatureDigest
        self.sha256 = sha256
        self.sign = sign
        self.clearErrors = clearErrors
        #else
        return nil
        #endif
    }
}
