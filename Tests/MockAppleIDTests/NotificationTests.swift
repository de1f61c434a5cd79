import Foundation
@testable import MockAppleID
import Testing

/// Server-to-server notifications in the core: what the world's transitions queue, the payload, and
/// the retry schedule on the mock clock (the sender itself is exercised end to end over HTTP).
@Suite("server-to-server notifications")
struct NotificationTests {
    static let receiver = "http://127.0.0.1:9/apple/notifications"
    static let group = "com.example.app"

    /// A provider whose `com.example.app` group posts to ``receiver``.
    static func provider(_ change: (inout Scenario) -> Void = { _ in }) throws -> AppleIDProvider {
        let provider = try Fixtures.provider(change)
        try provider.setNotificationURL(receiver, app: group)
        return provider
    }

    static func queued(_ provider: AppleIDProvider) -> [NotificationType] {
        provider.notificationDeliveries().map(\.notification.type)
    }

    @Test("loopback notification URLs have a setting of their own, which follows the return-URL one unless set")
    func loopbackNotificationURLs() throws {
        let cases: [(returnURLs: Bool, notificationURLs: Bool?, accepted: Bool)] = [
            (false, nil, false), (true, nil, true), (false, true, true), (true, false, false),
        ]
        for (returnURLs, notificationURLs, accepted) in cases {
            let provider = try Fixtures.provider {
                $0.settings.allowLoopbackReturnURLs = returnURLs
                $0.settings.allowLoopbackNotificationURLs = notificationURLs
            }
            let outcome = Result { () throws(NotificationError) in try provider.setNotificationURL(Self.receiver, app: Self.group) }
            #expect(((try? outcome.get()) != nil) == accepted, "\(returnURLs) \(String(describing: notificationURLs))")
            if case let .failure(failure) = outcome, case let .invalidURL(problem) = failure.base {
                #expect(problem.contains("settings.allowLoopbackNotificationURLs: true"))
            }
        }
        let yaml = """
            base: default
            settings: {allowLoopbackReturnURLs: false, allowLoopbackNotificationURLs: true}
            teams:
              - id: MOCKTEAM01
                keys: [{kid: MOCKKEY001, file: Keys/AuthKey_MOCKKEY001.p8}]
                apps: [{primaryAppID: com.example.app, notificationURL: "http://127.0.0.1:4000/n"}]
            """
        let scenario = try ScenarioLoader.load(yaml: yaml, file: "x.yaml", resources: DirectoryResources(baseDirectory: Fixtures.repositoryRoot))
        #expect(scenario.groups.first?.notificationURL == "http://127.0.0.1:4000/n")
        #expect(throws: ScenarioError.self) {
            try ScenarioLoader.load(yaml: yaml.replacingOccurrences(of: "allowLoopbackNotificationURLs: true", with: "allowLoopbackNotificationURLs: false"),
                                    file: "x.yaml", resources: DirectoryResources(baseDirectory: Fixtures.repositoryRoot))
        }
    }

    @Test("the user revoking consent queues consent-revoked for the group's URL, with the team-scoped sub")
    func consentRevoked() throws {
        let provider = try Self.provider()
        _ = try provider.signIn("jane")
        try provider.revokeConsent(personaID: "jane", clientID: Fixtures.webClient)
        let delivery = try #require(provider.notificationDeliveries().first)
        #expect(Self.queued(provider) == [.consentRevoked])
        #expect(delivery.url == Self.receiver && delivery.status == .pending && delivery.nextAttempt == Fixtures.start)
        #expect(delivery.notification.subject == provider.subject(personaID: "jane", clientID: Fixtures.webClient))
        #expect(delivery.notification.groupID == Self.group && delivery.notification.email == nil)
        #expect(delivery.id.count == 22)
    }

    @Test("a group without a notification URL gets none, and the event log says why")
    func unrouted() throws {
        let provider = try Fixtures.provider()
        _ = try provider.signIn("jane")
        try provider.revokeConsent(personaID: "jane", clientID: Fixtures.webClient)
        #expect(provider.notificationDeliveries().isEmpty)
        #expect(provider.world.events.events().map(\.event).contains(
            .notificationUnrouted(type: .consentRevoked, personaID: "jane", groupID: Self.group)))
        #expect(throws: NotificationError.unknownApp("com.nowhere")) { try provider.setNotificationURL(Self.receiver, app: "com.nowhere") }
        #expect(throws: NotificationError.self) { try provider.setNotificationURL("http://example.com/hook", app: Self.group) }
    }

    @Test("deleting the account sends the account-deletion event to every group it signed in to, spelled as configured",
          arguments: [NotificationOptions.AccountDeletedType.accountDelete, .accountDeleted])
    func accountDeleted(_ spelling: NotificationOptions.AccountDeletedType) throws {
        let provider = try Self.provider { $0.settings.notifications.accountDeletedType = spelling }
        try provider.setNotificationURL(Self.receiver, app: "org.other.web")
        _ = try provider.signIn("jane")
        _ = try provider.signIn("jane", parameters: Fixtures.authorizeParameters(["client_id": "org.other.web"]))
        try provider.deleteAccount(personaID: "jane")
        let deliveries = provider.notificationDeliveries()
        #expect(Set(deliveries.map(\.notification.groupID)) == [Self.group, "org.other.app"])
        #expect(deliveries.allSatisfy { $0.notification.type == .accountDeleted })
        let payload = try Self.payload(provider, deliveries[0])
        #expect(payload.events["type"] == .string(spelling.rawValue))
    }

    @Test("forwarding off sends email-disabled (on: email-enabled) to groups holding the relay address only")
    func forwarding() throws {
        let provider = try Self.provider()
        try provider.setNotificationURL(Self.receiver, app: "org.other.web")
        let hidden = try provider.signIn("jane", emailChoice: .hide)
        _ = try provider.signIn("jane", parameters: Fixtures.authorizeParameters(["client_id": "org.other.web"]), emailChoice: .share)
        var jane = try #require(provider.persona("jane"))
        jane.relayForwarding = false
        try provider.updatePersona(jane)
        jane.relayForwarding = true
        try provider.updatePersona(jane)
        #expect(Self.queued(provider) == [.emailDisabled, .emailEnabled])
        let relay = try claims(of: try #require(hidden["id_token"]))["email"]
        for delivery in provider.notificationDeliveries() {
            #expect(delivery.notification.groupID == Self.group)
            #expect(delivery.notification.email.map(JSONValue.string) == relay)
        }
    }

    @Test("/auth/revoke ends the consent without a notification unless onTokenRevocation is on", arguments: [false, true])
    func tokenRevocation(_ notify: Bool) throws {
        let provider = try Self.provider { $0.settings.notifications.onTokenRevocation = notify }
        let code = try #require(try provider.signIn("jane")["code"])
        let refresh = try #require(try provider.exchange(code).get()["refresh_token"]?.stringValue)
        try provider.revoke(Fixtures.form(["client_id": Fixtures.webClient, "client_secret": Fixtures.secret(), "token": refresh]))
        #expect(Self.queued(provider) == (notify ? [.consentRevoked] : []))
    }

    @Test("the payload: Apple's claims, events as a JSON string with event_time in ms, signed by the active key")
    func payload() throws {
        let provider = try Self.provider()
        try provider.advanceClock(by: 1.5)
        let delivery = try #require(try provider.notify(.emailDisabled, personaID: "john", app: Fixtures.webClient))
        let payload = try Self.payload(provider, delivery)
        #expect(payload.header["kid"] == .string(provider.keyRing().activeKID) && payload.header["alg"] == .string("RS256"))
        #expect(payload.claims["iss"] == .string("https://appleid.apple.com") && payload.claims["aud"] == .string(Self.group))
        #expect(payload.claims["jti"] == .string(delivery.id))
        let iat = try #require(payload.claims["iat"]?.int64Value)
        #expect(payload.claims["exp"]?.int64Value == iat + 86_400)
        #expect(payload.claims["events"]?.stringValue != nil)
        #expect(payload.events["event_time"]?.int64Value == 1_790_000_001_500)
        #expect(payload.events["is_private_email"] == .string("true"))
        #expect(payload.events["email"]?.stringValue?.hasSuffix("@private.icloud.com") == true)
        #expect(payload.events["sub"] == .string(provider.subject(personaID: "john", clientID: Fixtures.webClient) ?? ""))
    }

    @Test("notification claims for a tool that posts them itself: the sender's shape, a fresh jti, nothing queued")
    func claimsWithoutQueueing() throws {
        let provider = try Self.provider()
        let claims = try provider.notificationClaims(.emailDisabled, personaID: "john", app: Fixtures.webClient)
        let again = try provider.notificationClaims(.emailDisabled, personaID: "john", app: Fixtures.webClient)
        #expect(provider.notificationDeliveries().isEmpty)
        #expect(claims["aud"] == .string(Self.group) && claims["iss"] == .string("https://appleid.apple.com"))
        #expect(claims["jti"] != nil && claims["jti"] != again["jti"])
        let events = try #require(claims["events"]?.stringValue.flatMap { JSONValue.parse(Data($0.utf8)) })
        #expect(events["type"] == .string("email-disabled"))
        #expect(events["sub"] == .string(provider.subject(personaID: "john", clientID: Fixtures.webClient) ?? ""))
        #expect(events["email"]?.stringValue?.hasSuffix("@private.icloud.com") == true)
        #expect(throws: NotificationError.unknownPersona("nobody")) {
            try provider.notificationClaims(.consentRevoked, personaID: "nobody", app: Fixtures.webClient)
        }
    }

    @Test("the documentation's shapes: events as an object, event_time in seconds, is_private_email a boolean")
    func documentedShapes() throws {
        let provider = try Self.provider {
            $0.settings.notifications.events = .object
            $0.settings.notifications.eventTime = .seconds
            $0.settings.notifications.isPrivateEmail = .boolean
        }
        let delivery = try #require(try provider.notify(.emailEnabled, personaID: "john", app: Self.group))
        let payload = try Self.payload(provider, delivery)
        #expect(payload.claims["events"]?["type"] == .string("email-enabled"))
        #expect(payload.events["event_time"]?.int64Value == 1_790_000_000)
        #expect(payload.events["is_private_email"] == .bool(true))
    }

    @Test("a failed attempt is due again after the schedule's wait on the mock clock; the last failure waits for an admin retry")
    func retrySchedule() throws {
        let provider = try Self.provider { $0.settings.notifications.retrySchedule = [5, 30] }
        let delivery = try #require(try provider.notify(.consentRevoked, personaID: "jane", app: Self.group))
        #expect(provider.takeDueNotifications().map(\.id) == [delivery.id])
        #expect(provider.takeDueNotifications().isEmpty)  // being sent: not handed out twice
        provider.recordNotificationAttempt(.unreachable("connection refused"), id: delivery.id)
        #expect(provider.notificationDeliveries()[0].nextAttempt == Fixtures.start.addingTimeInterval(5))
        #expect(provider.takeDueNotifications().isEmpty)
        #expect(provider.nextNotificationDue() == Fixtures.start.addingTimeInterval(5))
        try provider.advanceClock(by: 5)
        #expect(provider.takeDueNotifications().count == 1)
        #expect(provider.nextNotificationDue() == nil)  // being sent: not pending
        provider.recordNotificationAttempt(.answered(status: 503), id: delivery.id)
        try provider.advanceClock(by: 30)
        #expect(provider.takeDueNotifications().count == 1)
        provider.recordNotificationAttempt(.answered(status: 500), id: delivery.id)
        var stored = provider.notificationDeliveries()[0]
        #expect(stored.status == .failed && stored.nextAttempt == nil)
        #expect(stored.attempts.map(\.outcome) == ["connection refused", "HTTP 503", "HTTP 500"])
        try provider.advanceClock(by: 86_400)
        #expect(provider.takeDueNotifications().isEmpty)
        #expect(provider.retryNotifications() == 1)
        #expect(provider.takeDueNotifications().count == 1)
        provider.recordNotificationAttempt(.answered(status: 200), id: delivery.id)
        stored = provider.notificationDeliveries()[0]
        #expect(stored.status == .delivered && stored.attempts.count == 4 && stored.attempts.last?.succeeded == true)
        #expect(provider.retryNotifications() == 0)
    }

    @Test("an attempt reported after a reset is ignored: it touches no later delivery")
    func reset() throws {
        let provider = try Self.provider()
        let old = try #require(try provider.notify(.consentRevoked, personaID: "jane", app: Self.group))
        _ = provider.takeDueNotifications()
        provider.reset()
        #expect(provider.notificationDeliveries().isEmpty)
        try provider.setNotificationURL(Self.receiver, app: Self.group)
        let new = try #require(try provider.notify(.consentRevoked, personaID: "jane", app: Self.group))
        _ = provider.takeDueNotifications()
        provider.recordNotificationAttempt(.answered(status: 200), id: old.id)
        let stored = provider.notificationDeliveries()
        #expect(stored.map(\.id) == [new.id] && stored[0].status == .sending && stored[0].attempts.isEmpty)
    }

    @Test("after a restore, a delivery caught mid-send is due again and a waiting one keeps its next attempt")
    func restoreResumes() throws {
        let provider = try Self.provider()
        let sending = try #require(try provider.notify(.consentRevoked, personaID: "jane", app: Self.group))
        let waiting = try #require(try provider.notify(.emailDisabled, personaID: "john", app: Self.group))
        _ = provider.takeDueNotifications()
        provider.recordNotificationAttempt(.answered(status: 503), id: waiting.id)
        let snapshot = provider.snapshot()
        let restored = try Fixtures.provider()
        restored.restore(snapshot)
        #expect(restored.nextNotificationDue() == restored.clock.now)
        #expect(restored.takeDueNotifications().map(\.id) == [sending.id])
        #expect(restored.nextNotificationDue() == Fixtures.start.addingTimeInterval(5))
        try restored.advanceClock(by: 5)
        #expect(restored.takeDueNotifications().map(\.id) == [waiting.id])
    }

    @Test("a snapshot keeps pending deliveries and their attempts")
    func snapshot() throws {
        let provider = try Self.provider()
        let delivery = try #require(try provider.notify(.consentRevoked, personaID: "jane", app: Self.group))
        _ = provider.takeDueNotifications()
        provider.recordNotificationAttempt(.answered(status: 502), id: delivery.id)
        let data = try JSONEncoder().encode(provider.snapshot())
        let restored = try Fixtures.provider()
        restored.restore(try JSONDecoder().decode(WorldSnapshot.self, from: data))
        #expect(restored.notificationDeliveries() == provider.notificationDeliveries())
        #expect(restored.directory.groups[Self.group]?.notificationURL == Self.receiver)
    }

    @Test("manual notifications name unknown personas and apps, and email events need an address")
    func manualErrors() throws {
        let provider = try Self.provider()
        #expect(throws: NotificationError.unknownPersona("ghost")) { try provider.notify(.consentRevoked, personaID: "ghost", app: Self.group) }
        #expect(throws: NotificationError.unknownApp("com.nowhere")) { try provider.notify(.consentRevoked, personaID: "jane", app: "com.nowhere") }
        #expect(throws: NotificationError.noRelayAddress("noemail")) { try provider.notify(.emailDisabled, personaID: "noemail", app: Self.group) }
    }

    @Test("timeline steps register URLs and send notifications; expect.notifications fails on a mismatch")
    func timeline() throws {
        let provider = try Fixtures.provider()
        let yaml = """
            - do: setNotificationURL
              app: com.example.web
              url: \(Self.receiver)
            - do: signIn
              persona: jane
            - do: revokeConsent
              persona: jane
              client: com.example.web
              expect: {notifications: [account-deleted]}
            - do: notify
              type: email-enabled
              persona: john
              app: com.example.app
              expect: {notifications: [email-enabled]}
            """
        provider.timeline.load(try Timeline.parse(yaml: yaml, file: "t.yaml", directory: provider.directory,
                                                  resources: EmbeddedResources(files: [:])))
        let outcomes = provider.timeline.runAll(provider)
        #expect(outcomes.map(\.passed) == [true, true, false, true])
        #expect(outcomes[2].failures == ["expected notifications [account-delete], queued [consent-revoked]"])
        #expect(Self.queued(provider) == [.consentRevoked, .emailEnabled])
    }

    /// The header, claims and decoded `events` of the payload the sender posts for `delivery` (which must be due).
    static func payload(_ provider: AppleIDProvider, _ delivery: NotificationDelivery) throws -> (header: JSONValue, claims: JSONValue, events: JSONValue) {
        let outgoing = try #require(provider.takeDueNotifications().first { $0.id == delivery.id })
        #expect(outgoing.url == delivery.url && outgoing.timeout == 10)
        let jwt = try #require(JSONValue.parse(Data(outgoing.body.utf8))?["payload"]?.stringValue)
        let jws = try CompactJWS(compact: jwt)
        #expect(provider.keySet.key(withID: provider.keyRing().activeKID)?.isValidSignature(jws.signature, for: jws.signingInput) == true)
        let events = try #require(jws.payload["events"].flatMap { $0.stringValue.flatMap { JSONValue.parse(Data($0.utf8)) } ?? $0 })
        return (jws.header, jws.payload, events)
    }
}
