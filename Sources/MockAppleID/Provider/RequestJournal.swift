import Foundation
import Synchronization

/// One Apple-endpoint request as the journal records it: what the relying party saw and the real reason.
public struct JournalEntry: Sendable, Equatable, Codable {
    /// Increases by one per entry; ask for entries after a sequence number to poll.
    public let sequence: Int
    public let time: Date
    public let method: String
    public let endpoint: String
    public let clientID: String?
    public let status: Int
    /// Apple's error code when the request failed.
    public let error: String?
    /// What happened, in plain words (why it failed, or what was issued).
    public let reason: String
}

/// A bounded, thread-safe log of Apple-endpoint requests, newest last.
public final class RequestJournal: Sendable {
    private struct Storage {
        var entries: [JournalEntry] = []
        var nextSequence = 1
    }

    private let storage = Mutex(Storage())
    /// The most entries kept; older ones are dropped first.
    public let capacity: Int

    public init(capacity: Int = 2000) { self.capacity = capacity }

    /// Appends an entry and returns it.
    @discardableResult
    public func record(time: Date, method: String, endpoint: String, clientID: String?, status: Int, error: String?, reason: String) -> JournalEntry {
        storage.withLock { storage in
            let entry = JournalEntry(sequence: storage.nextSequence, time: time, method: method, endpoint: endpoint,
                                     clientID: clientID, status: status, error: error, reason: reason)
            storage.nextSequence += 1
            storage.entries.append(entry)
            if storage.entries.count > capacity { storage.entries.removeFirst(storage.entries.count - capacity) }
            return entry
        }
    }

    /// Entries with a sequence number above `sequence`.
    public func entries(after sequence: Int = 0) -> [JournalEntry] {
        storage.withLock { $0.entries.filter { $0.sequence > sequence } }
    }

    /// Forgets every entry (sequence numbers keep increasing).
    public func clear() { storage.withLock { $0.entries.removeAll() } }
}
