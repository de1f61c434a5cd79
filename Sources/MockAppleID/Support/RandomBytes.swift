#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Bytes from the system's CSPRNG, read 4 KB at a time and handed out from a pool, so that an identifier
/// costs no system call (codes and tokens take a few dozen bytes each, several per sign-in; the standard
/// library's generator makes one call per eight bytes).
enum RandomBytes {
    private static let poolSize = 4096
    private static let pool = Mutex<(bytes: [UInt8], used: Int)>(([], poolSize))

    /// `count` random bytes (at most the pool's size).
    static func take(_ count: Int) -> [UInt8] {
        precondition(count <= poolSize)
        return pool.withLock { pool in
            if pool.used + count > pool.bytes.count {
                pool.bytes = fresh()
                pool.used = 0
            }
            defer { pool.used += count }
            return Array(pool.bytes[pool.used..<pool.used + count])
        }
    }

    private static func fresh() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: poolSize)
        bytes.withUnsafeMutableBytes { buffer in
            #if canImport(Glibc)
            // The kernel's CSPRNG, as getrandom(2) gives it, read through its device (getrandom itself is
            // not visible from Swift): one read per pool.
            let device = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
            defer { if device >= 0 { close(device) } }
            var filled = 0
            while device >= 0, filled < buffer.count {
                let count = read(device, buffer.baseAddress! + filled, buffer.count - filled)
                if count > 0 { filled += count } else if count == 0 || errno != EINTR { break }
            }
            if filled < buffer.count { fillFromStandardLibrary(buffer) }
            #else
            arc4random_buf(buffer.baseAddress!, buffer.count)
            #endif
        }
        return bytes
    }

    /// What the standard library's generator gives, should the system call fail.
    private static func fillFromStandardLibrary(_ buffer: UnsafeMutableRawBufferPointer) {
        var generator = SystemRandomNumberGenerator()
        for index in buffer.indices { buffer[index] = generator.next() }
    }
}
