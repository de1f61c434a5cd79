import Foundation
import MockAppleID

/// `GET /__admin/clock`: the instant, the mode and the scheduled work.
struct ClockView: Encodable {
    let now: Date
    let epochSeconds: Double
    let frozen: Bool
    let scheduled: [ScheduledView]

    struct ScheduledView: Encodable {
        let at: Date
        let label: String
    }

    init(_ clock: MockClock) {
        now = clock.now
        epochSeconds = now.timeIntervalSince1970
        frozen = clock.isFrozen
        scheduled = clock.scheduledWork.prefix(100).map { ScheduledView(at: $0.deadline, label: $0.label) }
    }
}

/// `GET /__admin/auto-approve`.
struct AutoApproveView: Encodable {
    let autoApprove: AutoApprove?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(autoApprove, forKey: .autoApprove)
    }

    private enum CodingKeys: String, CodingKey { case autoApprove }
}

/// `GET /__admin/journal`.
struct JournalView: Encodable {
    let entries: [JournalEntry]
}

/// `GET /__admin/events`.
struct EventsView: Encodable {
    let events: [EventView]

    struct EventView: Encodable {
        let sequence: Int
        let time: Date
        let description: String
        let event: DomainEvent
    }

    init(_ events: [RecordedEvent]) {
        self.events = events.map { EventView(sequence: $0.sequence, time: $0.time, description: $0.event.description, event: $0.event) }
    }
}

/// `GET /__admin/keys`.
struct KeysView: Encodable {
    let published: [String]
    let active: String
    let shuffled: Bool

    init(_ ring: KeyRing) {
        published = ring.published.map(\.kid)
        active = ring.activeKID
        shuffled = ring.shuffled
    }
}

/// `GET /__admin/faults`.
struct FaultsView: Encodable {
    let faults: [FaultView]

    struct FaultView: Encodable {
        let id: Int
        let description: String
        let clientID: String?
        let remaining: Int?
    }

    init(_ faults: [Fault]) {
        self.faults = faults.map { FaultView(id: $0.id, description: $0.description, clientID: $0.clientID, remaining: $0.remaining) }
    }
}

/// `GET /__admin/health`.
struct HealthView: Encodable {
    let status: String
    let scenario: String
    /// Every listener's URL, host and port, once all are bound (left out before, and after a reset).
    let listeners: ServerListeners?
}
