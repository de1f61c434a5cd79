import Foundation
import Hummingbird
import MockAppleID

extension Request {
    /// The body as a JSON object (an empty body reads as `{}`). Only writes carry one, and
    /// ``AdminGuard`` has already required them to be declared `application/json`.
    func adminJSON(maxSize: Int) async throws(AdminError) -> JSONValue {
        let buffer: ByteBuffer
        do { buffer = try await body.collect(upTo: maxSize) } catch {
            throw AdminError.badRequest("body is larger than \(maxSize) bytes")
        }
        guard buffer.readableBytes > 0 else { return .object([]) }
        guard let value = JSONValue.parse(Data(buffer.readableBytesView)), case .object = value else {
            throw AdminError.badRequest("body must be a JSON object")
        }
        return value
    }
}
