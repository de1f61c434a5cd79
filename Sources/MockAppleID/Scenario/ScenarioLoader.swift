import Crypto
import Foundation
import Yams

/// Reads scenario files (YAML, or JSON, which is YAML too) into a ``Scenario``, refusing anything
/// doubtful with the file, line and key path at fault.
public enum ScenarioLoader {
    /// Loads the scenario at `url`; key files are resolved relative to its folder.
    public static func load(contentsOf url: URL) throws(ScenarioError) -> Scenario {
        try load(yaml: text(contentsOf: url), file: url.path,
                 resources: DirectoryResources(baseDirectory: url.deletingLastPathComponent()))
    }

    /// The text of the scenario file at `url`; a file that cannot be read is an error naming it.
    public static func text(contentsOf url: URL) throws(ScenarioError) -> String {
        do { return try String(contentsOf: url, encoding: .utf8) } catch {
            throw ScenarioError(file: url.path, line: nil, column: nil, keyPath: "",
                                message: "cannot read the file: \(error.localizedDescription)")
        }
    }

    /// Loads scenario text; `file` names it in errors.
    public static func load(yaml: String, file: String, resources: any ScenarioResources) throws(ScenarioError) -> Scenario {
        try ScenarioReader(resources: resources).read(YAMLCursor(node: compose(yaml, file: file), path: "", file: file))
    }

    /// The document's root node; YAML syntax errors and an empty document name the file and line.
    ///
    /// Composed with Yams' basic resolver, which tags every plain scalar as text: ``YAMLCursor`` reads
    /// booleans, numbers and null by their spelling where it expects them. The default resolver would try
    /// each scalar against regular expressions, compiling them (with ICU) for the first document a process
    /// reads: about 1 ms of CPU, a twentieth of reading the built-in scenario.
    static func compose(_ yaml: String, file: String) throws(ScenarioError) -> Node {
        do {
            // The encoding named, so that Yams does not look it up in the environment on every parse.
            guard let node = try Yams.compose(yaml: yaml, .basic, .default, .utf8) else {
                throw ScenarioError(file: file, line: nil, column: nil, keyPath: "", message: "the document is empty")
            }
            return node
        } catch let error as ScenarioError {
            throw error
        } catch let error as YamlError {
            throw syntaxError(error, file: file)
        } catch {
            throw ScenarioError(file: file, line: nil, column: nil, keyPath: "", message: "not YAML: \(error)")
        }
    }

    private static func syntaxError(_ error: YamlError, file: String) -> ScenarioError {
        switch error {
        case let .scanner(_, problem, mark, _), let .parser(_, problem, mark, _), let .composer(_, problem, mark, _):
            return ScenarioError(file: file, line: mark.line, column: mark.column, keyPath: "", message: "YAML syntax: \(problem)")
        case let .duplicatedKeysInMapping(duplicates, context):
            return ScenarioError(file: file, line: context.mark.line, column: context.mark.column, keyPath: "",
                                 message: "duplicated keys: \(duplicates.joined(separator: ", "))")
        default:
            return ScenarioError(file: file, line: nil, column: nil, keyPath: "", message: "YAML: \(error)")
        }
    }
}

/// Walks the document; one method per section.
private struct ScenarioReader {
    let resources: any ScenarioResources

    func read(_ root: YAMLCursor) throws(ScenarioError) -> Scenario {
        let top = try root.mapping(allowed: ScenarioSchema.keys("top"))
        let base = try readBase(top.optional("base"))
        var settings = base?.settings ?? ProviderSettings()
        if let node = top.optional("settings") { try readSettings(node, into: &settings) }
        if let node = top.optional("claims") { try readClaims(node, into: &settings.claims) }
        if let node = top.optional("notifications") { try readNotifications(node, into: &settings.notifications) }
        if let node = top.optional("relay") { try readRelay(node, into: &settings.relay) }
        if let node = top.optional("errors") { try readErrors(node, into: &settings.errors) }
        var signingKeys: [SigningKey], activeKID: String, teams: [Team], groups: [AppGroup], personas: [Persona]
        if let base, top.optional("signingKeys") == nil {
            (signingKeys, activeKID) = (base.signingKeys, base.activeSigningKeyID)
        } else {
            (signingKeys, activeKID) = try readSigningKeys(try top.required("signingKeys"))
        }
        if let base, top.optional("teams") == nil {
            (teams, groups) = (base.teams, base.groups)
        } else {
            (teams, groups) = try readTeams(try top.required("teams"), settings: settings)
        }
        if let base, top.optional("personas") == nil {
            personas = base.personas
        } else {
            personas = try readPersonas(try top.required("personas"))
        }
        var autoApprove: AutoApprove?
        if let node = top.optional("autoApprove"), !node.isNull() {
            let approve = try readAutoApprove(node)
            guard personas.contains(where: { $0.id == approve.persona }) else {
                throw node.error("persona \"\(approve.persona)\" is not declared under personas")
            }
            autoApprove = approve
        }
        var scenario = Scenario(
            name: try top.optional("name")?.nonEmptyString() ?? "unnamed", settings: settings,
            signingKeys: signingKeys, activeSigningKeyID: activeKID, teams: teams, groups: groups,
            personas: personas, autoApprove: autoApprove, clock: try readClock(top.optional("clock")))
        if let node = top.optional("faults") {
            let items = try node.sequence()
            guard items.count <= 256 else { throw node.error("at most 256 faults") }
            for item in items { scenario.faults.append(try FaultReader.read(item)) }
        }
        if let node = top.optional("timeline") {
            scenario.timeline = try TimelineReader(resources: resources, directory: Directory(teams: teams, groups: groups)).read(node)
        }
        return scenario
    }

    /// `base: default` starts from the built-in scenario: its keys, teams and personas stand in for
    /// missing sections, and its settings are the ones the file's `settings` and `claims` change.
    private func readBase(_ node: YAMLCursor?) throws(ScenarioError) -> Scenario? {
        guard let node else { return nil }
        _ = try node.oneOf([("default", true)])
        do { return try BuiltInScenario.load() } catch { throw node.error("the built-in scenario did not load: \(error)") }
    }

    private func readSettings(_ node: YAMLCursor, into settings: inout ProviderSettings) throws(ScenarioError) {
        let map = try node.mapping(allowed: ScenarioSchema.keys("settings"))
        if let value = map.optional("shuffleJWKS") { settings.shuffleJWKS = try value.bool() }
        if let value = map.optional("issuer") { settings.issuer = try value.nonEmptyString() }
        if let value = map.optional("allowLoopbackReturnURLs") { settings.allowLoopbackReturnURLs = try value.bool() }
        if let value = map.optional("allowLoopbackNotificationURLs") { settings.allowLoopbackNotificationURLs = try value.bool() }
        if let value = map.optional("clientSecretIssuedAtTolerance") {
            settings.clientSecretIssuedAtTolerance = try seconds(value, allowZero: true)
        }
        if let value = map.optional("codeLifetime") { settings.codeLifetime = try seconds(value, allowZero: false) }
        if let value = map.optional("refreshTokensPerClient") {
            settings.refreshTokensPerClient = try value.integer(in: ProviderSettings.refreshTokensPerClientRange)
        }
        if let value = map.optional("accessTokenLifetime") {
            settings.accessTokenLifetime = try seconds(value, allowZero: false)
        }
        if let value = map.optional("refreshTokenRevocation") {
            settings.refreshTokenRevocation = try value.oneOf(ProviderSettings.TokenRevocation.allCases.map { ($0.rawValue, $0) })
        }
        if let value = map.optional("pkce") { settings.pkce = try value.oneOf(ProviderSettings.PKCEHandling.allCases.map { ($0.rawValue, $0) }) }
    }

    private func readClaims(_ node: YAMLCursor, into claims: inout ClaimOptions) throws(ScenarioError) {
        let map = try node.mapping(allowed: ScenarioSchema.keys("claims"))
        if let value = map.optional("realUserStatusInCodeExchange") { claims.realUserStatusInCodeExchange = try value.bool() }
        if let value = map.optional("booleans") {
            claims.booleans = try value.oneOf(ClaimOptions.BooleanStyle.allCases.map { ($0.rawValue, $0) })
        }
        if let value = map.optional("idTokenLifetime") { claims.idTokenLifetime = try seconds(value, allowZero: false) }
        if let value = map.optional("emittedTimeSkew") { claims.emittedTimeSkew = try TimelineReader.duration(value, allowNegative: true) }
        if let value = map.optional("refreshReturnsIDToken") { claims.refreshReturnsIDToken = try value.bool() }
    }

    private func readNotifications(_ node: YAMLCursor, into options: inout NotificationOptions) throws(ScenarioError) {
        let map = try node.mapping(allowed: ScenarioSchema.keys("notifications"))
        if let value = map.optional("accountDeletedType") {
            options.accountDeletedType = try value.oneOf(NotificationOptions.AccountDeletedType.allCases.map { ($0.rawValue, $0) })
        }
        if let value = map.optional("events") { options.events = try value.oneOf(NotificationOptions.EventsEncoding.allCases.map { ($0.rawValue, $0) }) }
        if let value = map.optional("eventTime") { options.eventTime = try value.oneOf(NotificationOptions.EventTimeUnit.allCases.map { ($0.rawValue, $0) }) }
        if let value = map.optional("isPrivateEmail") {
            options.isPrivateEmail = try value.oneOf(NotificationOptions.PrivateEmailStyle.allCases.map { ($0.rawValue, $0) })
        }
        if let value = map.optional("onTokenRevocation") { options.onTokenRevocation = try value.bool() }
        if let value = map.optional("retrySchedule") {
            let items = try value.sequence()
            guard items.count <= NotificationOptions.retryLimit else { throw value.error("at most \(NotificationOptions.retryLimit) retries") }
            options.retrySchedule = []
            for item in items {
                let wait = try seconds(item, allowZero: true)
                guard wait <= NotificationOptions.longestRetryWait else { throw item.error("a retry waits at most \(Int(NotificationOptions.longestRetryWait)) s") }
                options.retrySchedule.append(wait)
            }
        }
        if let value = map.optional("attemptTimeout") {
            let timeout = try seconds(value, allowZero: false)
            guard timeout <= NotificationOptions.longestAttemptTimeout else {
                throw value.error("at most \(Int(NotificationOptions.longestAttemptTimeout)) s")
            }
            options.attemptTimeout = timeout
        }
    }

    private func readRelay(_ node: YAMLCursor, into options: inout RelayOptions) throws(ScenarioError) {
        let map = try node.mapping(allowed: ScenarioSchema.keys("relay"))
        if let value = map.optional("dailyLimit") { options.dailyLimit = try value.integer(in: 0...1_000_000) }
        if let value = map.optional("addressDomain") {
            options.addressDomain = try value.oneOf(RelayOptions.AddressDomain.allCases.map { ($0.rawValue, $0) })
        }
        if let value = map.optional("senderRejection") {
            options.senderRejection = try value.oneOf(RelayOptions.SenderRejection.allCases.map { ($0.rawValue, $0) })
        }
        if let value = map.optional("maxMessageSize") { options.maxMessageSize = try value.integer(in: 1024...RelayOptions.largestMessageSize) }
        if let value = map.optional("inboxCapacity") { options.inboxCapacity = try value.integer(in: 1...RelayOptions.largestInboxCapacity) }
    }

    private func readErrors(_ node: YAMLCursor, into answers: inout ErrorAnswers) throws(ScenarioError) {
        let map = try node.mapping(allowed: ScenarioSchema.keys("errors"))
        if let value = map.optional("revokeHintMismatch") {
            answers.revokeHintMismatch = try value.oneOf(ErrorAnswers.HintMismatch.allCases.map { ($0.rawValue, $0) })
        }
        if let value = map.optional("refreshAfterConsentRevoked") {
            answers.refreshAfterConsentRevoked = try value.oneOf(ErrorAnswers.refreshAfterConsentRevokedCodes.map { ($0.rawValue, $0) })
        }
        if let value = map.optional("nonFormBody") { answers.nonFormBody = try value.oneOf(ErrorAnswers.nonFormBodyCodes.map { ($0.rawValue, $0) }) }
        if let value = map.optional("clientSecretFractionalTimes") {
            answers.clientSecretFractionalTimes = try value.oneOf(ErrorAnswers.FractionalTimes.allCases.map { ($0.rawValue, $0) })
        }
        if let value = map.optional("userMigrationInfoAfterTransfer") {
            answers.userMigrationInfoAfterTransfer = try value.oneOf(ErrorAnswers.MigrationAfterTransfer.allCases.map { ($0.rawValue, $0) })
        }
    }

    private func seconds(_ node: YAMLCursor, allowZero: Bool) throws(ScenarioError) -> TimeInterval {
        let value = try TimelineReader.duration(node, allowNegative: false)
        guard value > 0 || (allowZero && value == 0) else {
            throw node.error(allowZero ? "must be zero or more seconds" : "must be a positive number of seconds")
        }
        return value
    }

    private func readClock(_ node: YAMLCursor?) throws(ScenarioError) -> MockClock.Mode {
        guard let node else { return .running(offset: 0) }
        let map = try node.mapping(allowed: ScenarioSchema.keys("clock"))
        let frozen = try map.optional("frozen")?.bool() ?? false
        guard let startNode = map.optional("start") else {
            if frozen { throw node.error("a frozen clock needs a start time") }
            return .running(offset: 0)
        }
        let start = try TimelineReader.instant(startNode)
        return frozen ? .frozen(at: start) : .running(offset: start.timeIntervalSinceNow)
    }

    private func readSigningKeys(_ node: YAMLCursor) throws(ScenarioError) -> ([SigningKey], String) {
        var keys: [SigningKey] = []
        var active: String?
        for item in try node.sequence() {
            let map = try item.mapping(allowed: ScenarioSchema.keys("signingKeys[]"))
            let key = try SigningKeyReader(resources: resources).read(map, generateAllowed: false)
            guard !keys.contains(where: { $0.kid == key.kid }) else { throw item.error("kid \"\(key.kid)\" is declared twice") }
            keys.append(key)
            if let signing = map.optional("signing"), try signing.bool() {
                if active != nil { throw signing.error("only one signing key may have signing: true") }
                active = key.kid
            }
        }
        guard let first = keys.first else { throw node.error("at least one signing key is needed") }
        guard keys.count <= KeyRing.capacity else { throw node.error("at most \(KeyRing.capacity) signing keys can be published") }
        return (keys, active ?? first.kid)
    }

    private func readTeams(_ node: YAMLCursor, settings: ProviderSettings) throws(ScenarioError) -> ([Team], [AppGroup]) {
        var teams: [Team] = []
        var groups: [AppGroup] = []
        var clientIDs: Set<String> = []
        for item in try node.sequence() {
            let map = try item.mapping(allowed: ScenarioSchema.keys("teams[]"))
            let idNode = try map.required("id")
            let teamID = try appleTenCharacterID(idNode, what: "Team ID")
            guard !teams.contains(where: { $0.id == teamID }) else { throw idNode.error("team \(teamID) is declared twice") }
            var keys: [DeveloperKey] = []
            for keyItem in try map.required("keys").sequence() {
                let key = try readDeveloperKey(keyItem)
                guard !keys.contains(where: { $0.kid == key.kid }) else {
                    throw keyItem.error("key \(key.kid) is declared twice in team \(teamID)")
                }
                keys.append(key)
            }
            var sources: [String] = []
            if let sourcesNode = map.optional("emailSources") {
                let listed = try sourcesNode.stringList()
                do { sources = try Team.checkEmailSources(listed) } catch { throw sourcesNode.error(error.description) }
            }
            teams.append(Team(id: teamID, developerKeys: keys, emailSources: sources))
            for appItem in try map.required("apps").sequence() {
                let group = try readAppGroup(appItem, teamID: teamID, settings: settings)
                for client in group.clients {
                    guard clientIDs.insert(client.id).inserted else {
                        throw appItem.error("client id \(client.id) is registered twice")
                    }
                }
                groups.append(group)
            }
        }
        guard !teams.isEmpty else { throw node.error("at least one team is needed") }
        return (teams, groups)
    }

    private func appleTenCharacterID(_ node: YAMLCursor, what: String) throws(ScenarioError) -> String {
        let value = try node.string()
        let allowed = value.utf8.allSatisfy { (48...57).contains($0) || (65...90).contains($0) }
        guard value.utf8.count == 10, allowed else {
            throw node.error("\(what) \"\(value)\" must be 10 uppercase letters or digits, as Apple's are")
        }
        return value
    }

    private func readDeveloperKey(_ node: YAMLCursor) throws(ScenarioError) -> DeveloperKey {
        let map = try node.mapping(allowed: ScenarioSchema.keys("teams[].keys[]"))
        let kid = try appleTenCharacterID(try map.required("kid"), what: "Key ID")
        let (pem, source, location) = try KeyMaterial(resources: resources).read(map, owner: node)
        let revoked = try map.optional("revoked")?.bool() ?? false
        if let privateKey = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            return DeveloperKey(kid: kid, publicKey: privateKey.publicKey, revoked: revoked, location: location, privateKeyPEM: pem)
        }
        if let publicKey = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            return DeveloperKey(kid: kid, publicKey: publicKey, revoked: revoked, location: location)
        }
        throw source.error("not a P-256 key: expected a .p8 private key or a public key PEM")
    }

    private func readAppGroup(_ node: YAMLCursor, teamID: String, settings: ProviderSettings) throws(ScenarioError) -> AppGroup {
        let map = try node.mapping(allowed: ScenarioSchema.keys("teams[].apps[]"))
        let primary = try map.required("primaryAppID").nonEmptyString()
        let bundleIDs = try map.optional("bundleIDs")?.stringList() ?? []
        var services: [ServicesID] = []
        for item in try map.optional("servicesIDs")?.sequence() ?? [] {
            let serviceMap = try item.mapping(allowed: ScenarioSchema.keys("teams[].apps[].servicesIDs[]"))
            let id = try serviceMap.required("id").nonEmptyString()
            let urlsNode = try serviceMap.required("returnURLs")
            var urls: [String] = []
            for urlNode in try urlsNode.sequence() {
                let url = try urlNode.nonEmptyString()
                if let problem = settings.returnURLPolicy.problem(with: url) {
                    throw urlNode.error(problem)
                }
                urls.append(url)
            }
            guard !urls.isEmpty else { throw urlsNode.error("a Services ID needs at least one return URL") }
            services.append(ServicesID(id: id, returnURLs: urls))
        }
        let notificationURL = try map.optional("notificationURL").map { (node: YAMLCursor) throws(ScenarioError) -> String in
            let url = try node.nonEmptyString()
            if let problem = settings.notificationURLPolicy.problem(with: url, kind: "notification URLs") {
                throw node.error(problem)
            }
            return url
        }
        return AppGroup(primaryAppID: primary, teamID: teamID, bundleIDs: bundleIDs, servicesIDs: services, notificationURL: notificationURL)
    }

    private func readPersonas(_ node: YAMLCursor) throws(ScenarioError) -> [Persona] {
        var personas: [Persona] = []
        for item in try node.sequence() {
            let persona = try PersonaReader.read(item)
            guard !personas.contains(where: { $0.id == persona.id }) else {
                throw item.error("persona \"\(persona.id)\" is declared twice")
            }
            personas.append(persona)
        }
        guard !personas.isEmpty else { throw node.error("at least one persona is needed") }
        return personas
    }

    private func readAutoApprove(_ node: YAMLCursor) throws(ScenarioError) -> AutoApprove {
        let map = try node.mapping(allowed: ScenarioSchema.keys("autoApprove"))
        return AutoApprove(
            persona: try map.required("persona").nonEmptyString(),
            emailChoice: try map.optional("emailChoice")?.oneOf(EmailChoice.allCases.map { ($0.rawValue, $0) }))
    }
}

/// Reads one persona entry.
enum PersonaReader {
    static func read(_ node: YAMLCursor) throws(ScenarioError) -> Persona {
        let map = try node.mapping(allowed: ScenarioSchema.keys("personas[]"))
        var email: String?
        if let emailNode = map.optional("email"), !emailNode.isNull() {
            let value = try emailNode.nonEmptyString()
            guard value.contains("@" as Character) else { throw emailNode.error("\"\(value)\" is not an email address") }
            email = value
        }
        let persona = Persona(
            id: try map.required("id").nonEmptyString(),
            firstName: try map.optional("firstName")?.string() ?? "",
            lastName: try map.optional("lastName")?.string() ?? "",
            email: email,
            emailChoice: try map.optional("emailChoice")?.oneOf(EmailChoice.allCases.map { ($0.rawValue, $0) }) ?? .share,
            realUserStatus: try map.optional("realUserStatus")?.oneOf(RealUserStatus.allCases.map { ($0.name, $0) }) ?? .likelyReal,
            managed: try map.optional("managed")?.bool() ?? false,
            orgID: try map.optional("orgID")?.nonEmptyString(),
            emailVerified: try map.optional("emailVerified")?.bool() ?? true,
            relayForwarding: try map.optional("relayForwarding")?.bool() ?? true)
        do { try PersonaError.check(persona) } catch { throw node.error(error.description) }
        return persona
    }
}
