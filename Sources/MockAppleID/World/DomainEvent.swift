import Foundation

/// A change of the world, as typed data. Every transition appends its events to the ``EventLog``,
/// stamped with the one instant read for that request; the request journal, and any other reader,
/// work from these rather than from prose.
public enum DomainEvent: Sendable, Equatable, Codable {
    /// A persona approved a sign-in and a code was issued (`firstConsent`: the consent was given now).
    case signInApproved(personaID: String, clientID: String, firstConsent: Bool, native: Bool)
    /// The consent page was shown for a valid request.
    case consentPageShown(clientID: String)
    /// The authorization response went back to the relying party.
    case delivered(mode: String, redirectURI: String)
    /// The person pressed Cancel.
    case signInCancelled(clientID: String)
    /// A code was exchanged for tokens.
    case codeRedeemed(personaID: String, clientID: String)
    /// A refresh token was used.
    case tokensRefreshed(personaID: String, clientID: String)
    /// A persona's consent to an app group ended: its codes and tokens are gone, the next sign-in is a first one.
    case consentRevoked(personaID: String, groupID: String, cause: RevocationCause)
    /// `/auth/revoke` ended one token alone (`settings.refreshTokenRevocation: token`; `kind`: `refresh_token` or `access_token`).
    case tokenRevoked(personaID: String, clientID: String, kind: String)
    /// `/auth/revoke` was asked for a token it did not revoke (unknown, or another client's); Apple answers 200 all the same.
    case revocationIgnored(clientID: String, tokenOwner: String?)
    case personaCreated(personaID: String)
    /// A persona's fields changed; `fields` names them.
    case personaChanged(personaID: String, fields: [Persona.Field])
    /// The Apple Account was deleted: every grant ended and sign-in is refused.
    case accountDeleted(personaID: String)
    case autoApproveChanged(AutoApprove?)
    case keyAdded(kid: String)
    case keyActivated(kid: String)
    case keyRetired(kid: String)
    case jwksShuffleChanged(Bool)
    case clockChanged(now: Date, frozen: Bool)
    case faultQueued(Fault)
    /// A queued fault took effect on a request or a token.
    case faultApplied(Fault)
    /// Work scheduled on the clock could not be done when it came due.
    case scheduledChangeFailed(label: String, reason: String)
    /// An app group's notification URL was registered (or removed, nil).
    case notificationURLChanged(groupID: String, url: String?)
    /// A server-to-server notification was queued for delivery (`id`: its `jti`).
    case notificationQueued(id: String, type: NotificationType, personaID: String, groupID: String)
    /// A notification was called for, but its app group has no notification URL.
    case notificationUnrouted(type: NotificationType, personaID: String, groupID: String)
    /// A delivery attempt ended (`nextAttempt`: when the next is due, if any).
    case notificationAttempted(id: String, outcome: String, succeeded: Bool, nextAttempt: Date?)
    /// Undelivered notifications were made due at once (admin retry).
    case notificationsRetried(count: Int)
    /// The outbox was full of undelivered notifications and dropped the oldest.
    case notificationDropped(id: String)
    /// The person turned forwarding off or on for one of their relay addresses (the team's).
    case relayForwardingChanged(personaID: String, teamID: String, address: String, forwarding: Bool)
    /// A team's registered email sources were replaced.
    case emailSourcesChanged(teamID: String, sources: [String])
    /// The relay accepted a message for a persona's relay address (`id`: the message's).
    case relayMailDelivered(id: String, personaID: String, address: String, sender: String)
    /// The relay refused a recipient (an SMTP `550`).
    case relayMailRefused(address: String, sender: String, reason: String)
    /// A delivered message was forwarded upstream (or forwarding failed: `outcome` says).
    case relayMailForwarded(id: String, outcome: String)
    /// Every relay inbox was emptied.
    case relayInboxesCleared(count: Int)
    /// An app group moved to another team (`users`: the personas it brought along).
    case appTransferred(groupID: String, fromTeam: String, toTeam: String, users: Int)
    /// A team access token for user migration was issued.
    case teamTokenIssued(teamID: String, clientID: String)
    /// `/auth/usermigrationinfo` answered (`direction`: `transfer_sub` issued by the sending team, or `sub` resolved for the recipient).
    case userMigrated(teamID: String, direction: String)
    /// New relay addresses are given out at `domain` from now on (a timeline's `setRelayDomain`).
    case relayDomainChanged(domain: String)
    /// A timeline step ran (`index` from 0).
    case timelineStep(index: Int, summary: String, passed: Bool)
    /// Everything went back to the scenario's start.
    case worldReset
    /// An Apple endpoint answered: the request journal's entry.
    case request(RequestRecord)
}

extension DomainEvent {
    /// Whether the event changed when a notification is next due: queued, made due by a retry, or given
    /// its next attempt after a failed one (the sender then looks again).
    var reschedulesNotifications: Bool {
        switch self {
        case .notificationQueued, .notificationsRetried: return true
        case let .notificationAttempted(_, _, _, nextAttempt): return nextAttempt != nil
        default: return false
        }
    }
}

/// Why a consent ended.
public enum RevocationCause: String, Sendable, Codable {
    /// `POST /auth/revoke` with one of its tokens.
    case revokeEndpoint
    /// The user stopped using Sign in with Apple with the app (admin API, Swift API, timeline).
    case userRevoked
    /// The Apple Account was deleted.
    case accountDeleted
}

extension DomainEvent: CustomStringConvertible {
    public var description: String {
        switch self {
        case let .signInApproved(persona, client, first, native):
            return "\(first ? "first" : "returning") \(native ? "native " : "")sign-in of persona \(persona) to \(client); code issued"
        case let .consentPageShown(client): return "consent page shown for \(client)"
        case let .delivered(mode, uri): return "delivered by \(mode) to \(uri)"
        case let .signInCancelled(client): return "user cancelled the sign-in to \(client)"
        case let .codeRedeemed(persona, client): return "code exchanged by \(client) for persona \(persona)"
        case let .tokensRefreshed(persona, client): return "refresh by \(client) for persona \(persona)"
        case let .consentRevoked(persona, group, cause):
            return "consent of persona \(persona) to app group \(group) revoked (\(cause.rawValue)); its codes and tokens are void"
        case let .tokenRevoked(persona, client, kind):
            return "\(kind == TokenTypeHint.accessToken.rawValue ? "access" : "refresh") token of persona \(persona) revoked by \(client); the consent and its other tokens stay"
        case let .revocationIgnored(client, owner?):
            return "token belongs to \(owner), not \(client); nothing revoked (Apple answers 200 all the same)"
        case .revocationIgnored:
            return "token unknown or already revoked; nothing to do (Apple answers 200 all the same)"
        case let .personaCreated(persona): return "persona \(persona) created"
        case let .personaChanged(persona, fields): return "persona \(persona) changed: \(fields.map(\.rawValue).joined(separator: ", "))"
        case let .accountDeleted(persona): return "Apple Account of persona \(persona) deleted"
        case let .autoApproveChanged(value?): return "auto-approve on as \(value.persona)"
        case .autoApproveChanged(nil): return "auto-approve off"
        case let .keyAdded(kid): return "signing key \(kid) added to /auth/keys"
        case let .keyActivated(kid): return "signing key \(kid) now signs"
        case let .keyRetired(kid): return "signing key \(kid) retired from /auth/keys"
        case let .jwksShuffleChanged(on): return "JWKS order shuffling \(on ? "on" : "off")"
        case let .clockChanged(now, frozen): return "clock set to \(now.formatted(.iso8601))\(frozen ? ", frozen" : ", running")"
        case let .faultQueued(fault): return "fault queued: \(fault)"
        case let .faultApplied(fault): return "fault applied: \(fault)"
        case let .scheduledChangeFailed(label, reason): return "scheduled change failed: \(label): \(reason)"
        case let .notificationURLChanged(group, url?): return "notification URL of app group \(group) set to \(url)"
        case let .notificationURLChanged(group, nil): return "notification URL of app group \(group) removed"
        case let .notificationQueued(id, type, persona, group): return "\(type.rawValue) notification \(id) queued for \(group) (persona \(persona))"
        case let .notificationUnrouted(type, persona, group):
            return "\(type.rawValue) for persona \(persona) not sent: app group \(group) has no notification URL"
        case let .notificationAttempted(id, outcome, succeeded, next):
            return "notification \(id) \(succeeded ? "delivered" : "attempt failed"): \(outcome)\(next.map { "; next attempt at \($0.formatted(.iso8601))" } ?? "")"
        case let .notificationsRetried(count): return "\(count) undelivered notification(s) due again now"
        case let .notificationDropped(id): return "notification \(id) dropped: the outbox is full"
        case let .relayForwardingChanged(persona, team, address, forwarding):
            return "relay forwarding \(forwarding ? "on" : "off") for \(address) (persona \(persona), team \(team))"
        case let .emailSourcesChanged(team, sources):
            return "email sources of team \(team): \(sources.isEmpty ? "none" : sources.joined(separator: ", "))"
        case let .relayMailDelivered(id, persona, address, sender): return "relay took message \(id) from \(sender.isEmpty ? "<>" : sender) for \(address) (persona \(persona))"
        case let .relayMailRefused(_, _, reason): return "relay refused mail: \(reason)"
        case let .relayMailForwarded(id, outcome): return "message \(id) forwarded upstream: \(outcome)"
        case let .relayInboxesCleared(count): return "\(count) relay message(s) cleared"
        case let .appTransferred(group, from, to, users): return "app group \(group) transferred from team \(from) to \(to) with \(users) user(s)"
        case let .teamTokenIssued(team, client): return "user-migration access token issued to team \(team) (\(client))"
        case let .userMigrated(team, direction): return "user migration for team \(team): \(direction)"
        case let .relayDomainChanged(domain): return "new relay addresses are given out at \(domain); those given out keep theirs"
        case let .timelineStep(index, summary, passed): return "timeline step \(index + 1) \(passed ? "passed" : "FAILED"): \(summary)"
        case .worldReset: return "reset to the scenario's start"
        case let .request(record): return "\(record.method) \(record.endpoint) → \(record.status)"
        }
    }
}
