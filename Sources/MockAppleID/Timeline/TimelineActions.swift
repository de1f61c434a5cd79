/// A timeline action: its name (`do:`), the keys its step may carry besides `at`, `after`, `do` and
/// `expect`, and what it does. The one list of actions: the reader, the admin API's OpenAPI document (a
/// test compares) and the reference in docs/scenarios.md (generated) take them from here.
struct TimelineActionSpec: Sendable {
    let name: String
    let keys: [String]
    let does: String
}

extension TimelineReader {
    /// Every action, in the order the reference lists them.
    static let actions: [TimelineActionSpec] = [
        TimelineActionSpec(name: "signIn", keys: ["persona", "client", "redirectURI", "scopes", "nonce", "emailChoice", "responseType", "exchange"],
                       does: "a web sign-in through the consent path, then the code exchange (`responseType`: `code id_token` or `code`; `exchange` defaults to true)"),
        TimelineActionSpec(name: "nativeSignIn", keys: ["persona", "bundleID", "nonce", "scopes", "emailChoice", "realUserStatus", "exchange"],
                       does: "what the app receives, then the exchange without `redirect_uri`"),
        TimelineActionSpec(name: "cancel", keys: ["client"], does: "Cancel on the consent page"),
        TimelineActionSpec(name: "authorize", keys: ["parameters"], does: "a raw `/auth/authorize` request"),
        TimelineActionSpec(name: "exchangeCode", keys: ["client", "code", "redirectURI", "secret"],
                       does: "exchange the last code again (or another); `redirectURI: null` omits it"),
        TimelineActionSpec(name: "refresh", keys: ["client", "secret"], does: "use the last refresh token"),
        TimelineActionSpec(name: "revokeToken", keys: ["client", "token", "secret"],
                       does: "`/auth/revoke` with the last token (`token`: `refresh` or `access`)"),
        TimelineActionSpec(name: "changePersona", keys: ["persona", "set"], does: "change a persona (`set`: persona fields)"),
        TimelineActionSpec(name: "revokeConsent", keys: ["persona", "client"], does: "the user stops using Sign in with Apple with that app group"),
        TimelineActionSpec(name: "deleteAccount", keys: ["persona"], does: "delete the Apple Account"),
        TimelineActionSpec(name: "createPersona", keys: ["persona"],
                       does: "add one, or re-create a deleted one (new `sub`); `persona` is a persona entry"),
        TimelineActionSpec(name: "addKey", keys: ["kid", "alg", "file", "pem", "generate"],
                       does: "publish a signing key, from `file`, from `pem` or made (`generate: true`)"),
        TimelineActionSpec(name: "activateKey", keys: ["kid"], does: "sign with a published key"),
        TimelineActionSpec(name: "retireKey", keys: ["kid"], does: "stop publishing a key"),
        TimelineActionSpec(name: "shuffleKeys", keys: ["shuffled"], does: "vary the `/auth/keys` order"),
        TimelineActionSpec(name: "queueFault", keys: ["fault"], does: "queue a fault (`fault`: a fault object)"),
        TimelineActionSpec(name: "advanceClock", keys: ["seconds"], does: "move the clock"),
        TimelineActionSpec(name: "notify", keys: ["type", "persona", "app"], does: "send a server-to-server notification now"),
        TimelineActionSpec(name: "setNotificationURL", keys: ["app", "url"], does: "register an app group's notification URL (`url: null` removes it)"),
        TimelineActionSpec(name: "sendMail", keys: ["from", "to", "persona", "app", "headerFrom", "subject", "body"],
                       does: "mail to the private relay, to `to` or to the relay address of `persona` for `app`'s team, checked as the SMTP listener checks it (`expect.smtpReply`)"),
        TimelineActionSpec(name: "setEmailSources", keys: ["team", "sources"], does: "replace a team's registered email sources"),
        TimelineActionSpec(name: "setRelayForwarding", keys: ["persona", "app", "forwarding"],
                       does: "forwarding for the persona's relay address under `app`'s team, or (without `app`) every address"),
        TimelineActionSpec(name: "setRelayDomain", keys: ["domain"],
                       does: "give new relay addresses out at `domain` (\(ScenarioSchema.oneOf(RelayOptions.AddressDomain.self))) from now on, as Apple moved them in 2026; addresses given out keep theirs (this server's until a reset or a restart)"),
        TimelineActionSpec(name: "transferApp", keys: ["app", "to"], does: "move an app group to another team (`to`: a Team ID)"),
        TimelineActionSpec(name: "userMigration", keys: ["client", "persona", "sub", "target", "transferSub", "secret"],
                       does: "a team access token, then `/auth/usermigrationinfo`: `persona` or `sub` with `target` for the sending team, or `transferSub` for the recipient team (default: the last one a step got); `expect.claims` checks the answer's fields"),
    ]

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
