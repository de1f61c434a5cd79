extension DomainEvent {
    /// The kinds of event, named as an event's JSON form names its one member: the list the admin API's document
    /// gives for `/__admin/events` (a test compares).
    public enum Kind: String, CaseIterable, Sendable {
        case signInApproved, consentPageShown, delivered, signInCancelled, codeRedeemed, tokensRefreshed
        case consentRevoked, tokenRevoked, revocationIgnored, personaCreated, personaChanged, accountDeleted
        case autoApproveChanged, keyAdded, keyActivated, keyRetired, jwksShuffleChanged, clockChanged
        case faultQueued, faultApplied, scheduledChangeFailed, notificationURLChanged, notificationQueued
        case notificationUnrouted, notificationAttempted, notificationsRetried, notificationDropped
        case relayForwardingChanged, emailSourcesChanged, relayMailDelivered, relayMailRefused
        case relayMailForwarded, relayInboxesCleared, appTransferred, teamTokenIssued, userMigrated
        case relayDomainChanged, timelineStep, worldReset, request
    }

    /// This event's kind (an exhaustive switch: a new event cannot go without one).
    public var kind: Kind {
        switch self {
        case .signInApproved: .signInApproved
        case .consentPageShown: .consentPageShown
        case .delivered: .delivered
        case .signInCancelled: .signInCancelled
        case .codeRedeemed: .codeRedeemed
        case .tokensRefreshed: .tokensRefreshed
        case .consentRevoked: .consentRevoked
        case .tokenRevoked: .tokenRevoked
        case .revocationIgnored: .revocationIgnored
        case .personaCreated: .personaCreated
        case .personaChanged: .personaChanged
        case .accountDeleted: .accountDeleted
        case .autoApproveChanged: .autoApproveChanged
        case .keyAdded: .keyAdded
        case .keyActivated: .keyActivated
        case .keyRetired: .keyRetired
        case .jwksShuffleChanged: .jwksShuffleChanged
        case .clockChanged: .clockChanged
        case .faultQueued: .faultQueued
        case .faultApplied: .faultApplied
        case .scheduledChangeFailed: .scheduledChangeFailed
        case .notificationURLChanged: .notificationURLChanged
        case .notificationQueued: .notificationQueued
        case .notificationUnrouted: .notificationUnrouted
        case .notificationAttempted: .notificationAttempted
        case .notificationsRetried: .notificationsRetried
        case .notificationDropped: .notificationDropped
        case .relayForwardingChanged: .relayForwardingChanged
        case .emailSourcesChanged: .emailSourcesChanged
        case .relayMailDelivered: .relayMailDelivered
        case .relayMailRefused: .relayMailRefused
        case .relayMailForwarded: .relayMailForwarded
        case .relayInboxesCleared: .relayInboxesCleared
        case .appTransferred: .appTransferred
        case .teamTokenIssued: .teamTokenIssued
        case .userMigrated: .userMigrated
        case .relayDomainChanged: .relayDomainChanged
        case .timelineStep: .timelineStep
        case .worldReset: .worldReset
        case .request: .request
        }
    }
}
