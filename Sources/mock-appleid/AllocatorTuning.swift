#if canImport(Glibc)
import Glibc
#endif

/// Settings of the C allocator for a long-running server.
enum AllocatorTuning {
    /// With glibc, fixes the size from which an allocation gets pages of its own (mapped, and returned to
    /// the system once freed) at glibc's starting value, 128 KiB. By default glibc raises that size each
    /// time such a block is freed, so later large buffers (the grant tables, a purge's list of what
    /// expired) come from the heap instead, where the space they leave is kept: under endless sign-ins
    /// the resident size crept up by several MB. Called first in `main`, before any large block is
    /// freed. macOS's allocator is left as it is.
    static func keepLargeBlocksMapped() {
        #if canImport(Glibc)
        // `mallopt` and `M_MMAP_THRESHOLD` (-3) are declared in <malloc.h>, which Swift's Glibc module
        // does not bring in: the function is looked up in the C library the process already runs on.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "mallopt") else { return }  // nil: RTLD_DEFAULT, every loaded library
        _ = unsafeBitCast(symbol, to: Mallopt.self)(-3, 128 * 1024)
        #endif
    }
}
