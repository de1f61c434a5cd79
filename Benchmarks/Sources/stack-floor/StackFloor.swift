import ArgumentParser
import Foundation
import Hummingbird
import NIOCore
import NIOPosix

// `stack-floor --port PORT --file FILE`: the least a server built on mock-appleid's stack does. It is linked
// with every library mock-appleid's executable is linked with (their metadata and protocol conformances
// load as mock-appleid's do; code nothing refers to may be left out by the linker), runs as mock-appleid
// runs (SwiftNIO's event loops as Swift concurrency's executor, glibc's mmap threshold fixed), parses its
// arguments with the argument parser and answers `GET /auth/keys` with FILE's bytes through a Hummingbird
// router. What mock-appleid takes beyond it to start, and holds beyond it idle, is mock-appleid's own.

@main
enum StackFloorMain {
    static func main() {
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        if let symbol = dlsym(nil, "mallopt") { _ = unsafeBitCast(symbol, to: Mallopt.self)(-3, 128 * 1024) }  // M_MMAP_THRESHOLD
        #endif
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        Task {
            await StackFloor.main()
            exit(0)
        }
        dispatchMain()
    }
}

struct StackFloor: AsyncParsableCommand {
    @Option(help: "Port to listen on.") var port: Int
    @Option(help: "File whose bytes GET /auth/keys answers with.") var file: String

    func run() async throws {
        guard let bytes = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
        let body = ByteBuffer(bytes: bytes)
        let router = Router()
        router.get("/auth/keys") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8"], body: .init(byteBuffer: body))
        }
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await application.runService()
    }
}
