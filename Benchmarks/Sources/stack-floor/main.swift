import ArgumentParser
import Foundation
import Hummingbird

// `stack-floor --port PORT --file FILE`: the least a server built on mock-appleid's stack does. It is linked
// with every library mock-appleid's executable is linked with (their code, metadata and protocol
// conformances load as mock-appleid's do), parses its arguments with the argument parser and answers
// `GET /auth/keys` with FILE's bytes through a Hummingbird router. What mock-appleid takes beyond it to
// start, and holds beyond it idle, is mock-appleid's own.

@main
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
