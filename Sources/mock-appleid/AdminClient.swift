import AsyncHTTPClient
import Foundation
import MockAppleID
import NIOCore
import NIOHTTP1

/// Drives a running server through its admin API (`/__admin/…`): the commands given `--url`.
/// Use it inside ``with(url:_:)``, which closes its connections afterwards.
struct AdminClient {
    /// The server's base URL, without a trailing slash.
    let baseURL: String
    /// Sent as `Authorization: Bearer …` when the server requires it.
    let token: String?
    /// The option the URL came from (`--url`, or the audit's `--server`), for messages.
    let urlOption: String
    private let http: HTTPClient

    /// How long one admin call may take, answer included.
    static let timeout = TimeAmount.seconds(30)
    /// How long connecting may take; a refused connection fails at once (no retries: a command says so).
    static let connectTimeout = TimeAmount.seconds(5)
    /// The largest admin answer read (a long journal or event list stays far below it).
    static let responseLimit = 16 << 20

    /// Runs `body` with a client for the server at `url` (`http://HOST:PORT`, optionally with a path
    /// prefix), then closes the client's connections; `option` names where the URL came from in an error.
    static func with<Result>(url: String, token: String? = nil, option: String = "--url",
                             _ body: (AdminClient) async throws -> Result) async throws -> Result {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
              !(parsed.host ?? "").isEmpty, parsed.query == nil
        else { throw CommandError("\(option) must be the server's base URL, such as http://127.0.0.1:8080; got \"\(url)\"") }
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: connectTimeout, read: timeout))
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = AdminClient(baseURL: url.hasSuffix("/") ? String(url.dropLast()) : url, token: token, urlOption: option,
                                 http: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
        let result: Result
        do { result = try await body(client) } catch {
            try? await client.http.shutdown()
            throw error
        }
        try await client.http.shutdown()
        return result
    }

    /// `GET /__admin/<path>`; a status other than 2xx is thrown as the server's error.
    func get(_ path: String) async throws -> Data {
        try await call(.GET, path, body: nil)
    }

    /// `POST /__admin/<path>` with a JSON body; a status other than 2xx is thrown as the server's error.
    func post(_ path: String, _ body: JSONValue = .object([])) async throws -> Data {
        try await call(.POST, path, body: body)
    }

    /// `PUT /__admin/<path>` with a JSON body; a status other than 2xx is thrown as the server's error.
    func put(_ path: String, _ body: JSONValue) async throws -> Data {
        try await call(.PUT, path, body: body)
    }

    /// `DELETE /__admin/<path>`; a status other than 2xx is thrown as the server's error.
    func delete(_ path: String) async throws -> Data {
        try await call(.DELETE, path, body: nil)
    }

    /// Sends one admin request and returns the status and body, whatever the status; the whole answer, head and
    /// body, must come within ``timeout`` (a server that drips its body is given up on).
    func send(_ method: HTTPMethod, _ path: String, body: JSONValue?) async throws -> (status: UInt, body: Data) {
        let started = ContinuousClock.now
        do {
            let response = try await http.execute(request(method, path, body: body), timeout: Self.timeout)
            let limit = Duration.nanoseconds(Self.timeout.nanoseconds) - (ContinuousClock.now - started)
            let collected = await withDeadline(limit) { () -> Result<ByteBuffer, any Error> in
                do { return .success(try await response.body.collect(upTo: Self.responseLimit)) } catch { return .failure(error) }
            }
            guard let collected else {
                throw CommandError("\(method) \(baseURL)/__admin/\(path): the answer did not come whole within \(Self.timeout.nanoseconds / 1_000_000_000) s")
            }
            return (response.status.code, Data(try collected.get().readableBytesView))
        } catch let error as CommandError {
            throw error
        } catch let error as NIOTooManyBytesError {
            throw CommandError("\(method) \(baseURL)/__admin/\(path): the answer is larger than \(error.maxBytes ?? Self.responseLimit) bytes")
        } catch {
            throw unreachable(method, path, error)
        }
    }

    /// The server at ``baseURL`` did not answer `method /__admin/path`.
    private func unreachable(_ method: HTTPMethod, _ path: String, _ error: any Error) -> CommandError {
        let sources = urlOption == "--url" ? "--url, MOCK_APPLEID_URL" : urlOption
        return CommandError("cannot reach mock-appleid at \(baseURL) (\(method) /__admin/\(path)): \(error); is `mock-appleid serve` running there (\(sources))?")
    }

    /// `POST /__admin/<path>` whose answer is a stream of lines (`application/x-ndjson`): hands each non-empty line to
    /// `line` as it comes, until the server ends the answer. A status other than 2xx is thrown as the server's error.
    /// The read timeout applies between chunks, so the server must send something (an empty line) at least that often.
    func postStreaming(_ path: String, _ body: JSONValue, line: (String) throws -> Void) async throws {
        let response: HTTPClientResponse
        do { response = try await http.execute(request(.POST, path, body: body), timeout: Self.timeout) } catch {
            throw unreachable(.POST, path, error)
        }
        guard (200..<300).contains(response.status.code) else {
            let buffer = try await response.body.collect(upTo: Self.responseLimit)
            throw Self.failure(.POST, path, status: response.status.code, Data(buffer.readableBytesView))
        }
        var pending: [UInt8] = []
        do {
            for try await chunk in response.body {
                pending += chunk.readableBytesView
                while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let text = String(decoding: pending[..<end], as: UTF8.self)
                    pending.removeSubrange(...end)
                    if !text.isEmpty { try line(text) }
                }
                guard pending.count <= Self.responseLimit else { throw CommandError("POST /__admin/\(path): a line longer than \(Self.responseLimit) bytes") }
            }
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError("POST \(baseURL)/__admin/\(path): the answer broke off: \(error)")
        }
        if !pending.isEmpty { try line(String(decoding: pending, as: UTF8.self)) }
    }

    private func request(_ method: HTTPMethod, _ path: String, body: JSONValue?) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: "\(baseURL)/__admin/\(path)")
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body.data))
        }
        return request
    }

    /// Decodes an admin answer into `type`, naming the call when it does not fit.
    func decode<Value: Decodable>(_ type: Value.Type, _ data: Data, from path: String) throws -> Value {
        do { return try JSONDecoder.admin.decode(type, from: data) } catch {
            throw CommandError("\(baseURL)/__admin/\(path) answered something that is not a mock-appleid admin answer: \(error)")
        }
    }

    /// `POST /__admin/<path>` with a JSON body, and whether the server took it for later (202: scheduled on
    /// its mock clock); a status other than 2xx is thrown as the server's error.
    func postScheduling(_ path: String, _ body: JSONValue) async throws -> (body: Data, scheduled: Bool) {
        let answer = try await checkedCall(.POST, path, body: body)
        return (answer.body, answer.status == 202)
    }

    private func call(_ method: HTTPMethod, _ path: String, body: JSONValue?) async throws -> Data {
        try await checkedCall(method, path, body: body).body
    }

    private func checkedCall(_ method: HTTPMethod, _ path: String, body: JSONValue?) async throws -> (status: UInt, body: Data) {
        let (status, data) = try await send(method, path, body: body)
        guard (200..<300).contains(status) else { throw Self.failure(method, path, status: status, data) }
        return (status, data)
    }

    /// The admin API's `{"error", "message"}` as a command error.
    static func failure(_ method: HTTPMethod, _ path: String, status: UInt, _ data: Data) -> CommandError {
        let answer = JSONValue.parse(data)
        let detail = [answer?["error"]?.stringValue, answer?["message"]?.stringValue].compactMap { $0 }.joined(separator: ": ")
        let text = detail.isEmpty ? String(decoding: data.prefix(300), as: UTF8.self) : detail
        let hint = status == 401 ? " (give the server's admin token: --admin-token, or $MOCK_APPLEID_ADMIN_TOKEN)" : ""
        return CommandError("\(method) /__admin/\(path) answered \(status): \(text)\(hint)")
    }
}

extension JSONDecoder {
    /// Dates as the admin API writes them (ISO 8601).
    static var admin: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
