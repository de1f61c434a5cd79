import Foundation

/// Notifications waiting to be posted or already posted, oldest first: part of the world's state.
/// Bounded: once ``capacity`` is reached the oldest finished deliveries go first; undelivered ones
/// are dropped (with an event) only when nothing else is left to drop.
struct NotificationOutbox: Sendable, Codable {
    /// Oldest first. A state store keeps each delivery as a row of its own (see `WorldState+Storage.swift`).
    var deliveries = TrackedList<NotificationDelivery>()

    /// The most deliveries kept.
    static let capacity = 10_000

    /// Adds a delivery due at once; returns it, and the id of any undelivered one dropped to make room.
    mutating func add(_ notification: ServerNotification, url: String, id: String, now: Date)
        -> (delivery: NotificationDelivery, dropped: String?) {
        let delivery = NotificationDelivery(id: id, notification: notification, url: url, status: .pending, attempts: [],
                                            nextAttempt: now, failuresInARow: 0)
        deliveries.append(delivery)
        guard deliveries.count > Self.capacity else { return (delivery, nil) }
        let index = deliveries.firstIndex { $0.status == .delivered } ?? deliveries.firstIndex { $0.status == .failed } ?? 0
        let dropped = deliveries.remove(at: index)
        return (delivery, dropped.status == .delivered ? nil : dropped.id)
    }

    /// Whether a pending delivery is due at `now`.
    func hasDue(at now: Date) -> Bool {
        deliveries.entries.contains { $0.status == .pending && ($0.nextAttempt ?? now) <= now }
    }

    /// When the earliest pending delivery is due (nil: none is pending).
    var nextDue: Date? {
        deliveries.entries.lazy.filter { $0.status == .pending }.compactMap(\.nextAttempt).min()
    }

    /// The pending deliveries due at `now`, now marked as being sent.
    mutating func takeDue(at now: Date) -> [NotificationDelivery] {
        var due: [NotificationDelivery] = []
        for index in deliveries.indices where deliveries[index].status == .pending && (deliveries[index].nextAttempt ?? now) <= now {
            deliveries[index].status = .sending
            deliveries[index].nextAttempt = nil
            due.append(deliveries[index])
        }
        return due
    }

    /// Records an attempt's outcome: delivered, due again after the schedule's next wait, or failed
    /// when the schedule is used up. Nil when the delivery is gone (reset) or not being sent.
    mutating func record(_ outcome: DeliveryOutcome, for id: String, at now: Date, schedule: [TimeInterval]) -> NotificationDelivery? {
        guard let index = deliveries.firstIndex(where: { $0.id == id }), deliveries[index].status == .sending else { return nil }
        deliveries[index].attempts.append(DeliveryAttempt(time: now, outcome: outcome.summary, succeeded: outcome.succeeded))
        if outcome.succeeded {
            deliveries[index].status = .delivered
            return deliveries[index]
        }
        deliveries[index].failuresInARow += 1
        let failures = deliveries[index].failuresInARow
        if failures <= schedule.count {
            deliveries[index].status = .pending
            deliveries[index].nextAttempt = now.addingTimeInterval(schedule[failures - 1])
        } else {
            deliveries[index].status = .failed
        }
        return deliveries[index]
    }

    /// After a restore no attempt is under way: deliveries caught mid-send are due again at `now`.
    mutating func resumeAfterRestore(at now: Date) {
        for index in deliveries.indices where deliveries[index].status == .sending {
            deliveries[index].status = .pending
            deliveries[index].nextAttempt = now
        }
    }

    /// Makes every pending or failed delivery due at `now` (with a fresh schedule); returns how many.
    mutating func retryUndelivered(at now: Date) -> Int {
        var count = 0
        for index in deliveries.indices where deliveries[index].status == .pending || deliveries[index].status == .failed {
            deliveries[index].status = .pending
            deliveries[index].nextAttempt = now
            deliveries[index].failuresInARow = 0
            count += 1
        }
        return count
    }
}
