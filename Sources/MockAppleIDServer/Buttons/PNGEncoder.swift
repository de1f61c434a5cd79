import CompressNIO
import NIOCore

/// Encodes 8-bit RGBA pixels as a PNG file: the signature, `IHDR`, one `IDAT` (rows with the Sub
/// filter, deflated by zlib) and `IEND`.
enum PNGEncoder {
    enum Failure: Error { case deflate(any Error) }

    static func encode(rgba pixels: [UInt8], width: Int, height: Int) throws(Failure) -> ByteBuffer {
        precondition(pixels.count == width * height * 4 && width > 0 && height > 0)
        let rowBytes = width * 4
        var filtered = ByteBuffer()
        filtered.reserveCapacity((rowBytes + 1) * height)
        pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let row = y * rowBytes
                filtered.writeInteger(UInt8(1))  // Sub: each byte less the same byte of the pixel to its left
                filtered.writeWithUnsafeMutableBytes(minimumWritableBytes: rowBytes) { out in
                    for i in 0..<rowBytes {
                        out[i] = i < 4 ? pixels[row + i] : pixels[row + i] &- pixels[row + i - 4]
                    }
                    return rowBytes
                }
            }
        }
        let compressor = CompressionAlgorithm.zlib().compressor
        var deflated = ByteBuffer()
        do {
            try compressor.startStream()
            defer { try? compressor.finishStream() }
            deflated.reserveCapacity(compressor.maxSize(from: filtered))
            try compressor.streamDeflate(from: &filtered, to: &deflated, flush: .finish)
        } catch {
            throw .deflate(error)
        }

        var png = ByteBuffer()
        png.reserveCapacity(deflated.readableBytes + 64)
        png.writeBytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = ByteBuffer()
        header.writeInteger(UInt32(width))
        header.writeInteger(UInt32(height))
        header.writeBytes([8, 6, 0, 0, 0])  // 8 bits per sample, RGBA, deflate, adaptive filtering, no interlace
        writeChunk("IHDR", header, to: &png)
        writeChunk("IDAT", deflated, to: &png)
        writeChunk("IEND", ByteBuffer(), to: &png)
        return png
    }

    private static func writeChunk(_ type: String, _ data: ByteBuffer, to png: inout ByteBuffer) {
        png.writeInteger(UInt32(data.readableBytes))
        let start = png.writerIndex
        png.writeString(type)
        png.writeImmutableBuffer(data)
        let crc = png.withUnsafeReadableBytes { bytes in CRC32.checksum(bytes[(start - png.readerIndex)...]) }
        png.writeInteger(crc)
    }
}

/// The CRC-32 PNG chunks end with (ISO 3309, as zlib's `crc32`).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        (0..<8).reduce(UInt32(index)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
