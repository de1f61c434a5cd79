import Foundation
import Yams

/// Reads a scenario's `timeline:` list (and the admin API's timeline text) into ``TimelineStep``s,
/// refusing unknown keys and bad values with the file, line and key path, as the scenario loader does.
struct TimelineReader {
    let resources: any ScenarioResources
    /// Client ids, for defaults and checks.
    let directory: Directory

    func read(_ node: YAMLCursor) throws(ScenarioError) -> Timeline {
        let items = try node.sequence()
        guard items.count <= Timeline.stepLimit else { throw node.error("a timeline holds at most \(Timeline.stepLimit) steps") }
        var steps: [TimelineStep] = []
        for item in items { steps.append(try step(item)) }
        return Timeline(steps: steps)
    }

    private func step(_ node: YAMLCursor) throws(ScenarioError) -> TimelineStep {
        guard let mapping = node.node.mapping, let name = mapping["do"]?.string else {
            throw node.error("a step needs do: one of \(Self.actions.map(\.name).joined(separator: ", "))")
        }
        guard let kind = TimelineActionKind(rawValue: name) else {
            throw node.error("unknown action \"\(name)\"; expected one of \(Self.actions.map(\.name).joined(separator: ", "))")
        }
        let map = try node.mapping(allowed: ["do", "at", "after", "expect"] + kind.keys)
        let when: TimelineStep.When
        switch (map.optional("at"), map.optional("after")) {
        case (nil, nil): when = .immediately
        case let (at?, nil): when = .at(try Self.instant(at))
        case let (nil, after?): when = .after(try Self.duration(after, allowNegative: false))
        case (.some, .some): throw node.error("give at or after, not both")
        }
        let action = try self.action(kind, map)
        let expect = try map.optional("expect").map { (node: YAMLCursor) throws(ScenarioError) in try expectation(node) } ?? TimelineExpectation()
        return TimelineStep(when: when, action: action, expect: expect,
                            location: "\(node.file):\((node.node.mark?.line).map(String.init) ?? "?")")
    }

    private func action(_ kind: TimelineActionKind, _ map: YAMLMapping) throws(ScenarioError) -> TimelineAction {
        switch kind {
        case .signIn:
            let client = try map.optional("client")?.nonEmptyString() ?? directory.clients.first { $0.kind == .web }?.id ?? ""
            return .signIn(WebSignInStep(
                persona: try map.required("persona").nonEmptyString(), client: client,
                redirectURI: try map.optional("redirectURI")?.nonEmptyString(),
                scopes: try scopes(map.optional("scopes")), nonce: try map.optional("nonce")?.string(),
                emailChoice: try map.optional("emailChoice")?.oneOf(EmailChoice.allCases.map { ($0.rawValue, $0) }),
                idTokenInResponse: try map.optional("responseType")?.oneOf([("code id_token", true), ("code", false)] as [(String, Bool)]) ?? true,
                exchange: try map.optional("exchange")?.bool() ?? true))
        case .nativeSignIn:
            let bundle = try map.optional("bundleID")?.nonEmptyString() ?? directory.clients.first { $0.kind == .native }?.id ?? ""
            let request = NativeSignInRequest(
                personaID: try map.required("persona").nonEmptyString(), bundleID: bundle, nonce: try map.optional("nonce")?.string(),
                scopes: try scopes(map.optional("scopes")),
                emailChoice: try map.optional("emailChoice")?.oneOf(EmailChoice.allCases.map { ($0.rawValue, $0) }),
                realUserStatus: try map.optional("realUserStatus")?.oneOf(RealUserStatus.allCases.map { ($0.name, $0) }))
            return .nativeSignIn(request, exchange: try map.optional("exchange")?.bool() ?? true)
        case .cancel:
            return .cancel(client: try map.optional("client")?.nonEmptyString() ?? directory.clients.first { $0.kind == .web }?.id ?? "")
        case .authorize:
            let params = try map.required("parameters")
            var pairs: [(String, String)] = []
            for (key, value) in params.node.mapping ?? [:] {
                guard let name = key.string, let text = value.string else { throw params.error("parameters must map names to text") }
                pairs.append((name, text))
            }
            return .authorize(parameters: pairs)
        case .exchangeCode:
            var call = try tokenCall(map)
            call.code = try map.optional("code")?.nonEmptyString()
            if let redirect = map.optional("redirectURI") {
                call.redirectURI = redirect.isNull() ? .omitted : .value(try redirect.nonEmptyString())
            }
            return .exchangeCode(call)
        case .refresh:
            return .refresh(try tokenCall(map))
        case .revokeToken:
            let access: Bool = try map.optional("token")?.oneOf([("refresh", false), ("access", true)]) ?? false
            return .revokeToken(try tokenCall(map), accessToken: access)
        case .changePersona:
            let set = try map.required("set")
            _ = try set.mapping(allowed: ScenarioSchema.keys("personas[]").filter { $0 != "id" })
            return .changePersona(id: try map.required("persona").nonEmptyString(), patch: try set.jsonValue())
        case .revokeConsent:
            return .revokeConsent(persona: try map.required("persona").nonEmptyString(),
                                  client: try map.optional("client")?.nonEmptyString() ?? directory.clients.first?.id ?? "")
        case .deleteAccount:
            return .deleteAccount(persona: try map.required("persona").nonEmptyString())
        case .createPersona:
            return .createPersona(try PersonaReader.read(try map.required("persona")))
        case .addKey:
            return .changeKeys(.add(try SigningKeyReader(resources: resources).read(map, generateAllowed: true)))
        case .activateKey:
            return .changeKeys(.activate(kid: try map.required("kid").nonEmptyString()))
        case .retireKey:
            return .changeKeys(.retire(kid: try map.required("kid").nonEmptyString()))
        case .shuffleKeys:
            return .shuffleKeys(try map.optional("shuffled")?.bool() ?? true)
        case .queueFault:
            return .queueFault(try FaultReader.read(try map.required("fault")))
        case .notify:
            return .notify(try notificationType(try map.required("type")), persona: try map.required("persona").nonEmptyString(),
                           app: try map.required("app").nonEmptyString())
        case .setNotificationURL:
            let url = try map.required("url")
            return .setNotificationURL(app: try map.required("app").nonEmptyString(), url: url.isNull() ? nil : try url.nonEmptyString())
        case .sendMail:
            let recipient: MailStep.Recipient
            switch (map.optional("to"), map.optional("persona")) {
            case let (to?, nil): recipient = .address(try to.nonEmptyString())
            case let (nil, persona?):
                recipient = .relayAddress(persona: try persona.nonEmptyString(),
                                          app: try map.optional("app")?.nonEmptyString() ?? directory.clients.first?.id ?? "")
            default: throw map.cursor.error("give to: an address, or persona: (and app:) for the persona's relay address")
            }
            return .sendMail(MailStep(from: try map.required("from").string(), recipient: recipient,
                                      headerFrom: try map.optional("headerFrom")?.nonEmptyString(),
                                      subject: try map.optional("subject")?.string() ?? "Hello",
                                      body: try map.optional("body")?.string() ?? "A message from the timeline."))
        case .setRelayDomain:
            return .setRelayDomain(try map.required("domain").oneOf(RelayOptions.AddressDomain.allCases.map { ($0.rawValue, $0) }))
        case .transferApp:
            return .transferApp(app: try map.required("app").nonEmptyString(), team: try map.required("to").nonEmptyString())
        case .userMigration:
            let request: MigrationStep.Request
            if let target = map.optional("target") {
                guard map.optional("transferSub") == nil else { throw map.cursor.error("give target (sending team) or transferSub (recipient team), not both") }
                request = .transferSubject(persona: try map.optional("persona")?.nonEmptyString(), sub: try map.optional("sub")?.nonEmptyString(),
                                           target: try target.nonEmptyString())
            } else {
                request = .resolve(transferSub: try map.optional("transferSub")?.nonEmptyString())
            }
            return .userMigration(MigrationStep(client: try map.optional("client")?.nonEmptyString(), request: request,
                                                secret: try tokenCall(map).secret))
        case .setEmailSources:
            return .setEmailSources(team: try map.required("team").nonEmptyString(), sources: try map.required("sources").stringList())
        case .setRelayForwarding:
            return .setRelayForwarding(persona: try map.required("persona").nonEmptyString(), app: try map.optional("app")?.nonEmptyString(),
                                       forwarding: try map.required("forwarding").bool())
        case .advanceClock:
            return .advanceClock(try Self.duration(try map.required("seconds"), allowNegative: true))
        }
    }

    private func tokenCall(_ map: YAMLMapping) throws(ScenarioError) -> TokenCallStep {
        TokenCallStep(client: try map.optional("client")?.nonEmptyString(), code: nil, redirectURI: .same,
                      secret: try map.optional("secret").map { (node: YAMLCursor) throws(ScenarioError) in try secret(node) } ?? SecretRecipe())
    }

    private func secret(_ node: YAMLCursor) throws(ScenarioError) -> SecretRecipe {
        var recipe = SecretRecipe()
        if case .scalar = node.node {
            recipe.literal = try node.string()
            return recipe
        }
        let map = try node.mapping(allowed: ScenarioSchema.keys("timeline[].secret"))
        if let value = map.optional("issuedAtOffset") { recipe.issuedAtOffset = try Self.duration(value, allowNegative: true) }
        if let value = map.optional("lifetime") { recipe.lifetime = try Self.duration(value, allowNegative: true) }
        recipe.audience = try map.optional("audience")?.string()
        recipe.subject = try map.optional("subject")?.string()
        recipe.keyID = try map.optional("keyID")?.string()
        return recipe
    }

    private func scopes(_ node: YAMLCursor?) throws(ScenarioError) -> [Scope] {
        guard let node else { return [.name, .email] }
        var scopes: [Scope] = []
        for item in try node.sequence() {
            let scope = try item.oneOf(Scope.allCases.map { ($0.rawValue, $0) })
            if !scopes.contains(scope) { scopes.append(scope) }
        }
        return scopes.sorted()
    }

    private func expectation(_ node: YAMLCursor) throws(ScenarioError) -> TimelineExpectation {
        let map = try node.mapping(allowed: ScenarioSchema.keys("timeline[].expect"))
        var expect = TimelineExpectation()
        expect.error = try map.optional("error")?.oneOf(AppleErrorCode.allCases.map { ($0.rawValue, $0) })
        expect.errorDescription = try map.optional("errorDescription")?.string()
        expect.user = try map.optional("user")?.oneOf([("present", true), ("absent", false)])
        expect.signedBy = try map.optional("signedBy")?.nonEmptyString()
        expect.verifies = try map.optional("verifies")?.bool()
        expect.smtpReply = try map.optional("smtpReply")?.nonEmptyString()
        if let list = map.optional("notifications") {
            expect.notifications = try list.sequence().map { (item: YAMLCursor) throws(ScenarioError) in try notificationType(item) }
        }
        if let claims = map.optional("claims") {
            guard let mapping = claims.node.mapping else { throw claims.error("claims must map claim names to values, absent or present") }
            for (key, value) in mapping {
                guard let name = key.string else { throw claims.error("claim names must be text") }
                let cursor = YAMLCursor(node: value, path: "\(claims.path).\(name)", file: claims.file)
                let json = try cursor.jsonValue()
                switch json {
                case .string("absent"): expect.claims.append((name, .absent))
                case .string("present"): expect.claims.append((name, .present))
                default: expect.claims.append((name, .equals(json)))
                }
            }
        }
        return expect
    }

    private func notificationType(_ node: YAMLCursor) throws(ScenarioError) -> NotificationType {
        let name = try node.string()
        guard let type = NotificationType(name: name) else {
            throw node.error("\"\(name)\" is not one of \(NotificationType.acceptedNames)")
        }
        return type
    }

    static func instant(_ node: YAMLCursor) throws(ScenarioError) -> Date {
        let text = try node.string()
        guard let date = ISO8601DateFormatter().date(from: text) else {
            throw node.error("\"\(text)\" is not an ISO 8601 time such as 2026-01-01T09:00:00Z")
        }
        do { return try TimeRange.check(date) } catch { throw node.error(error.description) }
    }

    static func duration(_ node: YAMLCursor, allowNegative: Bool) throws(ScenarioError) -> TimeInterval {
        let value = try node.number()
        guard allowNegative || value >= 0 else { throw node.error("must be zero or more seconds") }
        do { return try TimeRange.checkDuration(value) } catch { throw node.error(error.description) }
    }
}

/// A fault entry (the admin API's fault object, written in YAML).
enum FaultReader {
    static func read(_ node: YAMLCursor) throws(ScenarioError) -> Fault {
        let spec = try node.jsonValue()
        do throws(FaultSpecError) { return try Fault(spec: spec) } catch { throw node.error(error.description) }
    }
}

extension Timeline {
    /// Reads a timeline written as a YAML (or JSON) list of steps, or a whole scenario file, whose
    /// `timeline:` list is read and other sections only checked for misspelt names; `file` names it in
    /// errors, key files are read through `resources`, client defaults come from `directory`.
    public static func parse(yaml: String, file: String, directory: Directory, resources: any ScenarioResources) throws(ScenarioError) -> Timeline {
        let root = try ScenarioLoader.compose(yaml, file: file)
        var cursor = YAMLCursor(node: root, path: "", file: file)
        if root.mapping != nil { cursor = try cursor.mapping(allowed: ScenarioSchema.keys("top")).required("timeline") }
        return try TimelineReader(resources: resources, directory: directory).read(cursor)
    }
}
