import Hummingbird
import MockAppleID

/// Reading Apple-endpoint input without ever crashing or hanging on bad input.
extension Request {
    /// The query string's parameters.
    func queryForm() throws(AppleError) -> FormParameters {
        do { return try FormParameters(urlEncoded: uri.query ?? "") } catch {
            throw AppleError(.invalidRequest, reason: "query string: \(error.description)")
        }
    }

    /// An `application/x-www-form-urlencoded` body of at most `maxSize` bytes, as Apple requires; a body
    /// of another type is refused with `wrongType` (`errors.nonFormBody` for the token and revoke endpoints).
    func urlEncodedForm(maxSize: Int, wrongType: AppleErrorCode = .invalidRequest) async throws(AppleError) -> FormParameters {
        guard declares("application/x-www-form-urlencoded") else {
            let contentType = headers[.contentType] ?? ""
            throw AppleError(wrongType, reason: contentType.isEmpty
                ? "Content-Type is missing; send application/x-www-form-urlencoded"
                : "Content-Type is \(contentType); Apple only reads application/x-www-form-urlencoded")
        }
        let buffer: ByteBuffer
        do { buffer = try await body.collect(upTo: maxSize) } catch {
            throw AppleError(.invalidRequest, reason: "body is larger than \(maxSize) bytes")
        }
        guard let text = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes),
              text.utf8.elementsEqual(buffer.readableBytesView)
        else { throw AppleError(.invalidRequest, reason: "body is not UTF-8") }
        do { return try FormParameters(urlEncoded: text) } catch {
            throw AppleError(.invalidRequest, reason: "body: \(error.description)")
        }
    }

    /// Whether the client asked for JSON rather than a page.
    var prefersJSON: Bool {
        (headers[.accept] ?? "").lowercased().firstRange(of: "application/json") != nil
    }

    /// Where the request came from, for the journal.
    var origin: RequestOrigin { .http(method.rawValue) }
}
