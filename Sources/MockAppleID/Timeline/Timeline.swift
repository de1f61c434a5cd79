import Foundation

/// An ordered script of steps replayed against a provider: sign-ins, persona changes, revocations,
/// key rotations, faults and clock moves, each with optional expectations.
public struct Timeline: Sendable {
    public var steps: [TimelineStep]

    public init(steps: [TimelineStep]) { self.steps = steps }

    /// The most steps a timeline may hold.
    public static let stepLimit = 1000
}

/// One step: when it runs, what it does, and what must come of it.
public struct TimelineStep: Sendable {
    public enum When: Sendable, Equatable {
        /// As soon as the previous step is done.
        case immediately
        /// When the clock reads this instant (the clock is moved there if it is earlier).
        case at(Date)
        /// This many seconds of clock time after the previous step.
        case after(TimeInterval)
    }

    public var when: When
    public var action: TimelineAction
    public var expect: TimelineExpectation
    /// Where the step was written (`file:line`), for reports.
    public var location: String
}

/// What a step does.
public enum TimelineAction: Sendable {
    /// A web sign-in through the consent path, exchanged at the token endpoint unless `exchange` is false.
    case signIn(WebSignInStep)
    /// A native sign-in (what the app receives), exchanged unless `exchange` is false.
    case nativeSignIn(NativeSignInRequest, exchange: Bool)
    /// The person presses Cancel on the consent page of `client`.
    case cancel(client: String)
    /// A raw `/auth/authorize` request (to watch Apple's configuration errors).
    case authorize(parameters: [(String, String)])
    /// Exchanges the last code again (or another), as `client`.
    case exchangeCode(TokenCallStep)
    /// Uses the last refresh token.
    case refresh(TokenCallStep)
    /// Revokes the last refresh (or access) token at `/auth/revoke`.
    case revokeToken(TokenCallStep, accessToken: Bool)
    /// Changes persona fields (the admin API's PATCH).
    case changePersona(id: String, patch: JSONValue)
    /// The user stops using Sign in with Apple with the app group of `client`.
    case revokeConsent(persona: String, client: String)
    /// The persona's Apple Account is deleted.
    case deleteAccount(persona: String)
    /// Adds a persona, or re-creates a deleted one.
    case createPersona(Persona)
    case changeKeys(KeyChange)
    case shuffleKeys(Bool)
    case queueFault(Fault)
    /// Moves the clock (on top of the step's `at`/`after`).
    case advanceClock(TimeInterval)
    /// Sends a server-to-server notification about `persona` to the app group of `app`.
    case notify(NotificationType, persona: String, app: String)
    /// Registers (or with nil removes) the notification URL of the app group of `app`.
    case setNotificationURL(app: String, url: String?)
    /// Sends a message to the private relay, as an SMTP client would.
    case sendMail(MailStep)
    /// Replaces a team's registered email sources.
    case setEmailSources(team: String, sources: [String])
    /// The persona turns forwarding on or off for their relay address under the team of `app` (every address, without `app`).
    case setRelayForwarding(persona: String, app: String?, forwarding: Bool)
    /// New relay addresses are given out at `domain` from now on; those given out keep theirs.
    case setRelayDomain(RelayOptions.AddressDomain)
    /// Moves the app group of `app` to team `team`.
    case transferApp(app: String, team: String)
    /// A team access token (`client_credentials`), then `/auth/usermigrationinfo`, as `client`'s team.
    case userMigration(MigrationStep)

    /// Words for the step in reports.
    public var summary: String {
        switch self {
        case let .signIn(step): return "web sign-in of \(step.persona) to \(step.client)"
        case let .nativeSignIn(request, _): return "native sign-in of \(request.personaID) to \(request.bundleID)"
        case let .cancel(client): return "cancel the sign-in to \(client)"
        case .authorize: return "authorize request"
        case let .exchangeCode(call): return "exchange \(call.code == nil ? "the last code" : "a code") as \(call.client ?? "the last client")"
        case let .refresh(call): return "refresh as \(call.client ?? "the last client")"
        case let .revokeToken(call, access): return "revoke the last \(access ? "access" : "refresh") token as \(call.client ?? "the last client")"
        case let .changePersona(id, patch): return "change persona \(id): \(patch.serialized)"
        case let .revokeConsent(persona, client): return "\(persona) stops using Sign in with Apple with \(client)"
        case let .deleteAccount(persona): return "delete \(persona)'s Apple Account"
        case let .createPersona(persona): return "create persona \(persona.id)"
        case let .changeKeys(change): return change.label
        case let .shuffleKeys(on): return "JWKS shuffling \(on ? "on" : "off")"
        case let .queueFault(fault): return "queue fault: \(fault.description)"
        case let .advanceClock(seconds): return "advance the clock \(seconds) s"
        case let .notify(type, persona, app): return "send \(type.rawValue) about \(persona) to \(app)"
        case let .setNotificationURL(app, url?): return "notification URL of \(app): \(url)"
        case let .setNotificationURL(app, nil): return "remove the notification URL of \(app)"
        case let .sendMail(mail): return "mail from \(mail.from) to \(mail.recipient.label)"
        case let .setEmailSources(team, sources): return "email sources of \(team): \(sources.joined(separator: ", "))"
        case let .setRelayForwarding(persona, app, forwarding):
            return "\(persona) turns relay forwarding \(forwarding ? "on" : "off")\(app.map { " for \($0)" } ?? " for every relay address")"
        case let .setRelayDomain(domain): return "new relay addresses at \(domain.rawValue)"
        case let .transferApp(app, team): return "transfer \(app) to team \(team)"
        case let .userMigration(step):
            switch step.request {
            case let .transferSubject(persona, _, target): return "user migration: transfer_sub of \(persona ?? "a sub") for team \(target)"
            case .resolve: return "user migration: resolve the transfer_sub as \(step.client ?? "the last client")"
            }
        }
    }
}

/// A web sign-in step.
public struct WebSignInStep: Sendable {
    public var persona: String
    public var client: String
    /// nil: the client's first return URL.
    public var redirectURI: String?
    public var scopes: [Scope]
    public var nonce: String?
    public var emailChoice: EmailChoice?
    /// `code id_token` (true) or `code` (false).
    public var idTokenInResponse: Bool
    public var exchange: Bool
}

/// A message a timeline sends to the relay.
public struct MailStep: Sendable {
    /// Where it goes: an address, or the relay address a persona has under an app's team.
    public enum Recipient: Sendable {
        case address(String)
        case relayAddress(persona: String, app: String)

        var label: String {
            switch self {
            case let .address(address): return address
            case let .relayAddress(persona, app): return "\(persona)'s relay address for \(app)"
            }
        }
    }

    /// The envelope sender, also the `From:` header unless `headerFrom` is given.
    public var from: String
    public var recipient: Recipient
    public var headerFrom: String?
    public var subject: String
    public var body: String
}

/// A user-migration step: which client's team asks, and what.
public struct MigrationStep: Sendable {
    public enum Request: Sendable {
        /// Sending team: `sub` (the persona's, as the client's team knows them, or given) and `target`.
        case transferSubject(persona: String?, sub: String?, target: String)
        /// Recipient team: a `transfer_sub` (nil: the last one a step got).
        case resolve(transferSub: String?)
    }

    /// nil: the client of the last sign-in.
    public var client: String?
    public var request: Request
    public var secret: SecretRecipe
}

/// A token-endpoint step: which client calls, with which code and redirect URI and client secret.
public struct TokenCallStep: Sendable {
    /// nil: the client of the last sign-in.
    public var client: String?
    /// nil: the last code.
    public var code: String?
    /// How `redirect_uri` is sent.
    public var redirectURI: RedirectChoice
    /// How the client secret is made.
    public var secret: SecretRecipe

    public enum RedirectChoice: Sendable, Equatable {
        /// The last sign-in's (none for native codes).
        case same
        case omitted
        case value(String)
    }
}

/// How a timeline makes a `client_secret`: signed with the team's developer key, possibly wrong on
/// purpose, or given literally.
public struct SecretRecipe: Sendable, Equatable {
    /// Added to the clock's now for `iat`.
    public var issuedAtOffset: TimeInterval = 0
    public var lifetime: TimeInterval = 3600
    public var audience: String?
    public var subject: String?
    public var keyID: String?
    /// Sent as is (for a secret that is not a JWT).
    public var literal: String?

    public init() {}
}

/// What must come of a step. Unset fields are not checked; a step with no `error` must succeed.
public struct TimelineExpectation: Sendable {
    /// Apple's error code the step must fail with.
    public var error: AppleErrorCode?
    public var errorDescription: String?
    /// Whether the `user` field (or native `fullName`) must be there.
    public var user: Bool?
    /// Claims of the step's identity token: a value, or ``ClaimExpectation/absent`` / ``ClaimExpectation/present``.
    public var claims: [(String, ClaimExpectation)] = []
    /// The `kid` that must sign the identity token.
    public var signedBy: String?
    /// Whether the identity token must verify against a key `/auth/keys` publishes.
    public var verifies: Bool?
    /// The notifications the step must queue, in order (`[]`: none).
    public var notifications: [NotificationType]?
    /// How the relay must answer a `sendMail` step: the start of its SMTP reply (`550 5.1.1`).
    /// Unset, the message must be accepted (`250`).
    public var smtpReply: String?

    public init() {}
}

/// An expected claim.
public enum ClaimExpectation: Sendable, Equatable, CustomStringConvertible {
    case equals(JSONValue)
    case absent
    case present

    public var description: String {
        switch self {
        case let .equals(value): return value.serialized
        case .absent: return "absent"
        case .present: return "present"
        }
    }
}
