import CompressNIO
import Foundation
import NIOCore
import Synchronization

/// The kinds of label a button shows.
enum ButtonType: String, CaseIterable, Sendable {
    case signIn = "sign-in"
    case `continue`
    case signUp = "sign-up"
}

/// An 8-bit coverage mask (255: ink), row by row.
struct ButtonMask: Sendable {
    let width: Int
    let height: Int
    /// For a label: the row its baseline runs along (it may lie outside the mask).
    let baseline: Int
    let coverage: [UInt8]

    /// A mask as the masters carry it: its coverage deflated (zlib) and base64-encoded.
    struct Packed: Sendable {
        let width: Int
        let height: Int
        var baseline = 0
        let deflated: String

        /// The mask itself; a master that does not inflate to its size is a build defect.
        func unpacked() -> ButtonMask {
            guard let data = Data(base64Encoded: deflated) else { preconditionFailure("button master is not base64") }
            var input = ByteBuffer(bytes: data)
            var output = ByteBuffer()
            output.reserveCapacity(width * height)
            do {
                try CompressionAlgorithm.zlib().decompressor.inflate(from: &input, to: &output)
            } catch {
                preconditionFailure("button master does not inflate: \(error)")
            }
            precondition(output.readableBytes == width * height, "button master has the wrong size")
            return ButtonMask(width: width, height: height, baseline: baseline, coverage: Array(output.readableBytesView))
        }
    }
}

/// The masters buttons are drawn from: the logo and every locale's labels, rendered from open fonts
/// by `Scripts/render-button-masters` (FreeType and HarfBuzz), unpacked on first use.
enum ButtonMasters {
    /// Every locale a button can be drawn in.
    static let locales: Set<String> = Set(packedLabels.keys)

    static let logo: ButtonMask = packedLogo.unpacked()

    private static let unpackedLabels = Mutex<[String: ButtonMask]>([:])

    /// The label of `type` in `locale` (one of ``locales``).
    static func label(_ type: ButtonType, locale: String) -> ButtonMask {
        let key = "\(locale)/\(type.rawValue)"
        if let mask = unpackedLabels.withLock({ $0[key] }) { return mask }
        guard let packed = packedLabels[locale]?[type] else { preconditionFailure("no button label for \(key)") }
        let mask = packed.unpacked()
        unpackedLabels.withLock { $0[key] = mask }
        return mask
    }
}
