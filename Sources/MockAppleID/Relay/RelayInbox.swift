import Foundation

/// The messages the relay accepted, across every persona, oldest first, and the recent deliveries
/// per address that the daily limit counts: part of the world's state.
struct RelayInbox: Sendable, Codable {
    /// Oldest first. A state store keeps each message as a row of its own (see `WorldState+Storage.swift`).
    var messages = TrackedList<RelayMessage>()
    /// Delivery times per relay address within the last 24 hours.
    private var recent: [String: [Date]] = [:]

    static let day: TimeInterval = 86_400

    /// How many messages `address` took in the 24 hours before `now`.
    func deliveries(to address: String, since now: Date) -> Int {
        (recent[address] ?? []).filter { now.timeIntervalSince($0) < Self.day }.count
    }

    /// The most bytes of messages kept across all inboxes (each message as received and its decoded text);
    /// the oldest go first beyond it.
    static let byteBudget = 256 * 1024 * 1024
    private var bytes = 0

    /// Keeps `message`, dropping the oldest beyond `capacity` messages or ``byteBudget`` bytes;
    /// `countingDaily`: remember its time for the daily limit.
    mutating func add(_ message: RelayMessage, capacity: Int, countingDaily: Bool) {
        messages.append(message)
        bytes += message.keptBytes
        if countingDaily {
            let now = message.receivedAt
            recent[message.relayAddress] = (recent[message.relayAddress] ?? []).filter { now.timeIntervalSince($0) < Self.day } + [now]
        }
        while messages.count > capacity || (bytes > Self.byteBudget && messages.count > 1) {
            bytes -= messages.remove(at: 0).keptBytes
        }
    }

    /// Records how forwarding a message went; false when the message is gone.
    mutating func markForwarded(_ id: String, outcome: String) -> Bool {
        guard let index = messages.firstIndex(where: { $0.id == id }) else { return false }
        var message = messages[index]
        message.forwarded = outcome
        messages[index] = message
        return true
    }

    /// Works the byte count out from the messages kept (after a restore, rather than trusting a stored count).
    mutating func recountBytes() { bytes = messages.entries.reduce(0) { $0 + min(max(0, $1.keptBytes), Self.byteBudget) } }

    /// Empties every inbox (the daily counts stay: the mail was still sent).
    mutating func clear() -> Int {
        defer {
            messages.removeAll()
            bytes = 0
        }
        return messages.count
    }
}
