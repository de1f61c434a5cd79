/// A timeline action (`do:`): the one list of actions. The reader's switch over it is exhaustive, and the admin API's
/// OpenAPI document (a test compares) and the reference in docs/scenarios.md (generated) take the list from here.
enum TimelineActionKind: String, CaseIterable, Sendable {
    case signIn, nativeSignIn, cancel, authorize, exchangeCode, refresh, revokeToken
    case changePersona, revokeConsent, deleteAccount, createPersona
    case addKey, activateKey, retireKey, shuffleKeys, queueFault, advanceClock
    case notify, setNotificationURL, sendMail, setEmailSources, setRelayForwarding, setRelayDomain
    case transferApp, userMigration

    /// The action's name, as `do:` gives it.
    var name: String { rawValue }
    /// The keys its step may carry besides `at`, `after`, `do` and `expect`.
    var keys: [String] { spec.keys }
    /// What it does, for the reference.
    var does: String { spec.does }

    private var spec: (keys: [String], does: String) {
        switch self {
        case .signIn: (["persona", "client", "redirectURI", "scopes", "nonce", "emailChoice", "responseType", "exchange"],
                   "a web sign-in through the consent path, then the code exchange (`responseType`: `code id_token` or `code`; `exchange` defaults to true)")
        case .nativeSignIn: (["persona", "bundleID", "nonce", "scopes", "emailChoice", "realUserStatus", "exchange"],
                   "what the app receives, then the exchange without `redirect_uri`")
        case .cancel: (["client"],
                   "Cancel on the consent page")
        case .authorize: (["parameters"],
                   "a raw `/auth/authorize` request")
        case .exchangeCode: (["client", "code", "redirectURI", "secret"],
                   "exchange the last code again (or another); `redirectURI: null` omits it")
        case .refresh: (["client", "secret"],
                   "use the last refresh token")
        case .revokeToken: (["client", "token", "secret"],
                   "`/auth/revoke` with the last token (`token`: `refresh` or `access`)")
        case .changePersona: (["persona", "set"],
                   "change a persona (`set`: persona fields)")
        case .revokeConsent: (["persona", "client"],
                   "the user stops using Sign in with Apple with that app group")
        case .deleteAccount: (["persona"],
                   "delete the Apple Account")
        case .createPersona: (["persona"],
                   "add one, or re-create a deleted one (new `sub`); `persona` is a persona entry")
        case .addKey: (["kid", "alg", "file", "pem", "generate"],
                   "publish a signing key, from `file`, from `pem` or made (`generate: true`)")
        case .activateKey: (["kid"],
                   "sign with a published key")
        case .retireKey: (["kid"],
                   "stop publishing a key")
        case .shuffleKeys: (["shuffled"],
                   "vary the `/auth/keys` order")
        case .queueFault: (["fault"],
                   "queue a fault (`fault`: a fault object)")
        case .advanceClock: (["seconds"],
                   "move the clock")
        case .notify: (["type", "persona", "app"],
                   "send a server-to-server notification now")
        case .setNotificationURL: (["app", "url"],
                   "register an app group's notification URL (`url: null` removes it)")
        case .sendMail: (["from", "to", "persona", "app", "headerFrom", "subject", "body"],
                   "mail to the private relay, to `to` or to the relay address of `persona` for `app`'s team, checked as the SMTP listener checks it (`expect.smtpReply`)")
        case .setEmailSources: (["team", "sources"],
                   "replace a team's registered email sources")
        case .setRelayForwarding: (["persona", "app", "forwarding"],
                   "forwarding for the persona's relay address under `app`'s team, or (without `app`) every address")
        case .setRelayDomain: (["domain"],
                   "give new relay addresses out at `domain` (\(ScenarioSchema.oneOf(RelayOptions.AddressDomain.self))) from now on, as Apple moved them in 2026; addresses given out keep theirs (this server's until a reset or a restart)")
        case .transferApp: (["app", "to"],
                   "move an app group to another team (`to`: a Team ID)")
        case .userMigration: (["client", "persona", "sub", "target", "transferSub", "secret"],
                   "a team access token, then `/auth/usermigrationinfo`: `persona` or `sub` with `target` for the sending team, or `transferSub` for the recipient team (default: the last one a step got); `expect.claims` checks the answer's fields")
        }
    }
}

extension TimelineReader {
    /// Every action, in the order the reference lists them.
    static let actions = TimelineActionKind.allCases

    /// The actions as a Markdown table: what docs/scenarios.md carries between its timeline-actions marks.
    static var referenceTable: String {
        (["| action | keys | does |", "|---|---|---|"] + actions.map { action in
            "| `\(action.name)` | \(action.keys.map { "`\($0)`" }.joined(separator: ", ")) | \(action.does) |"
        }).joined(separator: "\n")
    }
}

extension ScenarioSchema {
    /// The timeline actions as a Markdown table (`mock-appleid scenario reference --timeline-actions`).
    public static var timelineActionsTable: String { TimelineReader.referenceTable }
}
