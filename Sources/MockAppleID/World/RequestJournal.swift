import Foundation

/// Which Apple endpoint a request went to.
public enum AppleEndpoint: String, Sendable, Codable, CaseIterable {
    case authorize = "/auth/authorize"
    case token = "/auth/token"
    case revoke = "/auth/revoke"
    case keys = "/auth/keys"
    case discovery = "/.well-known/openid-configuration"
    case userMigrationInfo = "/auth/usermigrationinfo"
    /// A native sign-in minted through the admin API, the CLI, a timeline or the Swift API (Apple's
    /// equivalent happens on the device).
    case nativeSignIn = "native sign-in"

    /// The HTTP method a request of this kind uses when none is given.
    var defaultMethod: String {
        switch self {
        case .keys, .discovery: return "GET"
        case .authorize, .token, .revoke, .nativeSignIn, .userMigrationInfo: return "POST"
        }
    }
}

/// How a request reached the provider.
public enum Channel: String, Sendable, Codable, CaseIterable {
    /// Over HTTP, from a relying party or a browser.
    case http
    /// Through the Swift API (embedding tests).
    case swift
    /// Through the admin API.
    case admin
    /// By a timeline step.
    case timeline
}

/// Where a request came from: its channel and HTTP method.
public struct RequestOrigin: Sendable, Equatable {
    public let channel: Channel
    public let method: String?

    public init(channel: Channel, method: String? = nil) {
        self.channel = channel
        self.method = method
    }

    /// A request made through the Swift API.
    public static let swift = RequestOrigin(channel: .swift)

    /// An HTTP request with `method`.
    public static func http(_ method: String) -> RequestOrigin { RequestOrigin(channel: .http, method: method) }
}

/// One Apple-endpoint request as the journal records it: what the relying party saw and the real reason.
public struct RequestRecord: Sendable, Equatable, Codable {
    /// Longest `client_id` and reason kept; longer ones are cut and marked with "…".
    public static let clientIDLimit = 256
    public static let reasonLimit = 2048

    public let method: String
    public let endpoint: String
    public let via: Channel
    public let clientID: String?
    public let status: Int
    /// Apple's error code when the request failed.
    public let error: String?
    /// What happened, in plain words (why it failed, or what was issued).
    public let reason: String

    public init(endpoint: AppleEndpoint, origin: RequestOrigin, clientID: String?, status: Int, error: String?, reason: String) {
        self.method = origin.method ?? endpoint.defaultMethod
        self.endpoint = endpoint.rawValue
        self.via = origin.channel
        self.clientID = clientID.map { Self.bounded($0, Self.clientIDLimit) }
        self.status = status
        self.error = error
        self.reason = Self.bounded(reason, Self.reasonLimit)
    }

    private static func bounded(_ text: String, _ limit: Int) -> String {
        text.utf8.count <= limit ? text : String(decoding: text.utf8.prefix(limit), as: UTF8.self) + "…"
    }
}

/// A request as `GET /__admin/journal` lists it: the record with its place in the event log and its time
/// (encoded flat, the record's fields beside `sequence` and `time`).
@dynamicMemberLookup
public struct JournalEntry: Sendable, Equatable, Codable {
    /// The event's sequence number in the event log.
    public let sequence: Int
    /// The mock clock's instant when the request was answered.
    public let time: Date
    public let record: RequestRecord

    public subscript<T>(dynamicMember field: KeyPath<RequestRecord, T>) -> T { record[keyPath: field] }

    private enum CodingKeys: String, CodingKey { case sequence, time }

    public init(sequence: Int, time: Date, record: RequestRecord) {
        self.sequence = sequence
        self.time = time
        self.record = record
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sequence = try container.decode(Int.self, forKey: .sequence)
        time = try container.decode(Date.self, forKey: .time)
        record = try RequestRecord(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sequence, forKey: .sequence)
        try container.encode(time, forKey: .time)
        try record.encode(to: encoder)
    }
}

/// The request journal: the Apple-endpoint requests of the event log, newest last. It is a reader
/// of the log, so requests made through the Swift API, the admin API and timelines appear like any other.
public struct RequestJournal: Sendable {
    let log: EventLog

    /// Requests with a sequence number above `sequence`.
    public func entries(after sequence: Int = 0) -> [JournalEntry] {
        log.events(after: sequence).compactMap { recorded in
            guard case let .request(record) = recorded.event else { return nil }
            return JournalEntry(sequence: recorded.sequence, time: recorded.time, record: record)
        }
    }
}
