import DequeModule
import Foundation
import Synchronization

/// A domain event with its place in the log and the instant of the request that caused it.
public struct RecordedEvent: Sendable, Equatable, Codable {
    /// Increases by one per event, across resets; ask for events after a sequence number to poll.
    public let sequence: Int
    public let time: Date
    public let event: DomainEvent
}

/// The ordered, bounded log of domain events. Readers poll it (``events(after:)``) or subscribe
/// (``subscribe()``); the oldest events are dropped once ``capacity`` is reached.
public final class EventLog: Sendable {
    private struct Storage {
        var events = Deque<RecordedEvent>()
        var nextSequence = 1
        var subscribers: [Int: AsyncStream<RecordedEvent>.Continuation] = [:]
        var nextSubscriber = 1
    }

    private let storage = Mutex(Storage())
    /// How many subscribers there are, read without a lock: with none (the usual case) an append takes only `storage`.
    private let subscriberCount = Atomic<Int>(0)
    /// Held while events are handed to the subscribers, so they get them in order; never together with
    /// `storage`. Handing an event over may wait for the Swift runtime's lock on the reader's task, and a
    /// reader cancelled meanwhile (holding that lock) takes `storage` to unsubscribe: `storage` held
    /// across the hand-over deadlocked the two.
    private let delivery = Mutex(())
    /// The most events kept.
    public let capacity: Int

    public init(capacity: Int = 10_000) { self.capacity = max(1, capacity) }

    /// Appends `events`, each stamped with `time`, and hands them to the subscribers.
    func append(_ events: [DomainEvent], at time: Date) {
        guard !events.isEmpty else { return }
        guard subscriberCount.load(ordering: .acquiring) > 0 else {
            storage.withLock { storage in
                for event in events {
                    storage.events.append(RecordedEvent(sequence: storage.nextSequence, time: time, event: event))
                    storage.nextSequence += 1
                }
                if storage.events.count > capacity { storage.events.removeFirst(storage.events.count - capacity) }
            }
            return
        }
        delivery.withLock { _ in
            let (recorded, subscribers) = storage.withLock { storage in
                let recorded = events.map { event in
                    defer { storage.nextSequence += 1 }
                    return RecordedEvent(sequence: storage.nextSequence, time: time, event: event)
                }
                storage.events.append(contentsOf: recorded)
                if storage.events.count > capacity { storage.events.removeFirst(storage.events.count - capacity) }
                return (recorded, Array(storage.subscribers.values))
            }
            for event in recorded {
                for subscriber in subscribers { subscriber.yield(event) }
            }
        }
    }

    /// Events with a sequence number above `sequence`, oldest first.
    public func events(after sequence: Int = 0) -> [RecordedEvent] {
        storage.withLock { storage in
            guard let first = storage.events.first, sequence >= first.sequence else { return Array(storage.events) }
            let offset = sequence - first.sequence + 1
            return offset < storage.events.count ? Array(storage.events[offset...]) : []
        }
    }

    /// The sequence number the next event will get.
    public var nextSequence: Int { storage.withLock { $0.nextSequence } }

    /// Every event appended from now on, in order. The stream buffers the newest `bufferLimit` events a
    /// slow reader has not taken yet; it ends when the reader stops iterating.
    public func subscribe(bufferLimit: Int = 10_000) -> AsyncStream<RecordedEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: RecordedEvent.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = storage.withLock { storage in
            let id = storage.nextSubscriber
            storage.nextSubscriber += 1
            storage.subscribers[id] = continuation
            subscriberCount.store(storage.subscribers.count, ordering: .releasing)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            storage.withLock { storage in
                _ = storage.subscribers.removeValue(forKey: id)
                subscriberCount.store(storage.subscribers.count, ordering: .releasing)
            }
        }
        return stream
    }

    /// Forgets every event (sequence numbers keep increasing).
    func clear() { storage.withLock { $0.events.removeAll() } }
}
