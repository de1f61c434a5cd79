/// Every key a scenario file may use, section by section: the loader accepts exactly these, and the
/// README's scenario-file reference is made from this list (a test keeps the two equal).
public enum ScenarioSchema {
    /// Every key, in documented order.
    public static let fields: [ScenarioField] = [
        ScenarioField("top", "base", type: "`default`", required: "no", default: "—",
                      meaning: "start from the built-in scenario: its signing keys, teams and personas stand in for missing sections, its settings are what `settings`/`claims` change"),
        ScenarioField("top", "name", type: "text", required: "no", default: "`unnamed`",
                      meaning: "shown by `/__admin/health` and `serve`"),
        ScenarioField("top", "settings", type: "mapping", required: "no", default: "Apple's behaviour",
                      meaning: "knobs below"),
        ScenarioField("top", "claims", type: "mapping", required: "no", default: "Apple's current tokens",
                      meaning: "identity-token shape, below"),
        ScenarioField("top", "clock", type: "mapping", required: "no", default: "running, wall-clock time",
                      meaning: "where the mock clock starts"),
        ScenarioField("top", "signingKeys", type: "list", required: "yes (unless `base`)", default: "—",
                      meaning: "keys published at `/auth/keys`, in this order"),
        ScenarioField("top", "teams", type: "list", required: "yes (unless `base`)", default: "—",
                      meaning: "developer teams with their keys and apps"),
        ScenarioField("top", "personas", type: "list", required: "yes (unless `base`)", default: "—",
                      meaning: "who can sign in"),
        ScenarioField("top", "autoApprove", type: "mapping", required: "no", default: "off",
                      meaning: "headless mode: every authorization answered at once as this persona"),
        ScenarioField("top", "notifications", type: "mapping", required: "no", default: "Apple's observed payloads",
                      meaning: "how notifications are shaped and retried (see Notifications)"),
        ScenarioField("top", "relay", type: "mapping", required: "no", default: "Apple's documented limits",
                      meaning: "how the private email relay takes mail (see Private email relay)"),
        ScenarioField("top", "errors", type: "mapping", required: "no", default: "TN3107's answers",
                      meaning: "Apple's answers where its technote and its observed answers differ, below"),
        ScenarioField("top", "faults", type: "list", required: "no", default: "none",
                      meaning: "faults queued from the start (see Fault injection)"),
        ScenarioField("top", "timeline", type: "list", required: "no", default: "none",
                      meaning: "steps replayed by `scenario run` (see Timelines)"),
        ScenarioField("settings", "issuer", type: "text", required: "no", default: "`https://appleid.apple.com`",
                      meaning: "`iss` of tokens and discovery"),
        ScenarioField("settings", "allowLoopbackReturnURLs", type: "boolean", required: "no", default: "`false` (the built-in scenario: `true`)",
                      meaning: "allow `http://localhost`/loopback-IP return URLs, which Apple refuses"),
        ScenarioField("settings", "allowLoopbackNotificationURLs", type: "boolean", required: "no", default: "as `allowLoopbackReturnURLs`",
                      meaning: "allow `http://localhost`/loopback-IP notification URLs (a test harness's receiver) whatever `allowLoopbackReturnURLs` says"),
        ScenarioField("settings", "clientSecretIssuedAtTolerance", type: "seconds", required: "no", default: "`60`",
                      meaning: "how far a client secret's `iat` may be ahead"),
        ScenarioField("settings", "codeLifetime", type: "seconds", required: "no", default: "`300`",
                      meaning: "authorization codes' lifetime"),
        ScenarioField("settings", "accessTokenLifetime", type: "seconds", required: "no", default: "`3600`",
                      meaning: "`expires_in`"),
        ScenarioField("settings", "shuffleJWKS", type: "boolean", required: "no", default: "`false`",
                      meaning: "list `/auth/keys` in a different order on each fetch, as Apple's does"),
        ScenarioField("settings", "refreshTokensPerClient", type: "whole number 1–100000", required: "no", default: "`100`",
                      meaning: "refresh tokens kept per persona and client; one more revokes the oldest (a limit of this server's, so memory stays flat)"),
        ScenarioField("settings", "refreshTokenRevocation", type: oneOf(ProviderSettings.TokenRevocation.self), required: "no", default: "`consent`",
                      meaning: "what revoking a refresh or access token at `/auth/revoke` ends: the persona's consent to the app group with every code and token under it, so the next sign-in is a first one, as Apple's WWDC22 session on account deletion and TN3194 describe revocation; or `token`, that token alone, as RFC 7009 allows (no `consent-revoked` is then sent). Whether revoking one refresh token ends the person's others was asked on Apple's developer forums (thread 859842) and is unanswered"),
        ScenarioField("settings", "pkce", type: oneOf(ProviderSettings.PKCEHandling.self), required: "no", default: "`enforce`",
                      meaning: "`code_challenge` at `/auth/authorize` and `code_verifier` at `/auth/token`: checked as RFC 7636 says, or `ignore`: accepted and not checked. Apple's behaviour is unknown: it documents no PKCE and its discovery document advertises no `code_challenge_methods_supported`, though relying parties reported in October 2024 that an exchange without the verifier of a challenge they sent was refused (a-tokyo/apple-signin-auth#180). RP libraries that send PKCE to Apple work either way"),
        ScenarioField("claims", "booleans", type: "`boolean` | `string` | `mixed`", required: "no", default: "`boolean`",
                      meaning: "type of `email_verified`/`is_private_email`"),
        ScenarioField("claims", "idTokenLifetime", type: "seconds", required: "no", default: "`86400`",
                      meaning: "`exp - iat` (600 before 2020)"),
        ScenarioField("claims", "emittedTimeSkew", type: "seconds", required: "no", default: "`0`",
                      meaning: "added to emitted `iat`/`exp`/`auth_time`"),
        ScenarioField("claims", "refreshReturnsIDToken", type: "boolean", required: "no", default: "`true`",
                      meaning: "whether a refresh answer carries an `id_token`"),
        ScenarioField("claims", "realUserStatusInCodeExchange", type: "boolean", required: "no", default: "`false`",
                      meaning: "whether a native first authorization's code-exchange token repeats `real_user_status` (unconfirmed)"),
        ScenarioField("notifications", "accountDeletedType", type: "`account-delete` | `account-deleted`", required: "no", default: "`account-delete`",
                      meaning: "the account-deletion `type` string"),
        ScenarioField("notifications", "events", type: "`string` | `object`", required: "no", default: "`string` (JSON-encoded)",
                      meaning: "`events` claim: a JSON-encoded string, as sent, or an object, as documented"),
        ScenarioField("notifications", "eventTime", type: "`milliseconds` | `seconds`", required: "no", default: "`milliseconds`",
                      meaning: "`event_time` unit"),
        ScenarioField("notifications", "isPrivateEmail", type: "`string` | `boolean`", required: "no", default: "`string` (`\"true\"`)",
                      meaning: "`is_private_email` in email events: `\"true\"` or `true`"),
        ScenarioField("notifications", "onTokenRevocation", type: "boolean", required: "no", default: "`false`",
                      meaning: "`/auth/revoke`, when it ends the consent (`settings.refreshTokenRevocation: consent`), also sends `consent-revoked`"),
        ScenarioField("notifications", "retrySchedule", type: "list of seconds (≤ 20, each ≤ 604800)", required: "no", default: "`[5, 30, 120, 600, 3600, 21600, 86400]`",
                      meaning: "mock-clock seconds before attempt 2, 3, …; after the last, a delivery waits for an admin retry. `[]`: delivered once. Apple's answers disagree: a DTS engineer wrote that each event is expected once (Apple developer forums thread 809509), another that a non-200 answer or a timeout is retried (thread 830681)"),
        ScenarioField("notifications", "attemptTimeout", type: "seconds (≤ 120)", required: "no", default: "`10`",
                      meaning: "real seconds an attempt may take"),
        ScenarioField("relay", "dailyLimit", type: "integer (0 = none)", required: "no", default: "`100`",
                      meaning: "messages one relay address takes in 24 hours of clock time"),
        ScenarioField("relay", "addressDomain", type: oneOf(RelayOptions.AddressDomain.self), required: "no",
                      default: "`private.icloud.com`",
                      meaning: "the domain new relay addresses are given out at (in tokens, notifications and the admin API), as Apple's developer news of 15 June 2026 (corrected on 24 August 2026) says of Sign in with Apple; `privaterelay.appleid.com` gives them out where Apple did before. An address keeps the domain it was given out at, and the relay takes mail for an address at either. An address in use in a state file or database written by a version that recorded no domain per address keeps the one that version gave out: this key's value if the scenario names it, else `privaterelay.appleid.com`"),
        ScenarioField("relay", "senderRejection", type: "`unauthorized sender` | `user not found` | `bad mailbox name`", required: "no", default: "`unauthorized sender`",
                      meaning: "text of the `550 5.1.1` for an unregistered sender"),
        ScenarioField("relay", "maxMessageSize", type: "bytes (1024–52428800)", required: "no", default: "`10485760`",
                      meaning: "largest message (advertised with `SIZE`)"),
        ScenarioField("relay", "inboxCapacity", type: "integer (1–100000)", required: "no", default: "`1000`",
                      meaning: "messages kept across all inboxes; the oldest go first"),
        ScenarioField("errors", "revokeHintMismatch", type: "`invalid_request` | `ignore`", required: "no", default: "`invalid_request`",
                      meaning: "`/auth/revoke` with a `token_type_hint` naming the other kind of token: refused, as TN3107 names it; `ignore` revokes it all the same, as RFC 7009 allows"),
        ScenarioField("errors", "refreshAfterConsentRevoked", type: "`invalid_request` | `invalid_grant`", required: "no",
                      default: "`invalid_request`",
                      meaning: "a refresh token whose persona stopped using Sign in with Apple with the app: TN3107's `invalid_request` (\"the user has revoked authorization for the client\"; also seen in Apple developer forums thread 123909, 2019), or `invalid_grant` \"The token has expired or has been revoked.\" as for a token revoked through `/auth/revoke`"),
        ScenarioField("errors", "nonFormBody", type: "`invalid_request` | `invalid_client` | `unsupported_grant_type`", required: "no",
                      default: "`invalid_request`",
                      meaning: "`/auth/token` or `/auth/revoke` with a body that is not `application/x-www-form-urlencoded`: TN3107's `invalid_request`; `invalid_client` as Apple answered a JSON body in 2020 (a-tokyo/apple-signin-auth#28), or `unsupported_grant_type`, which a 2019 report shows"),
        ScenarioField("errors", "clientSecretFractionalTimes", type: "`accept` | `refuse`", required: "no", default: "`accept`",
                      meaning: "a client secret whose `iat` or `exp` has a fraction of a second (`Date.now() / 1000`): compared as numbers, as RFC 7519 and JWT libraries allow (Apple's answer is not on record); `refuse` answers `invalid_client`"),
        ScenarioField("errors", "userMigrationInfoAfterTransfer", type: oneOf(ErrorAnswers.MigrationAfterTransfer.self), required: "no", default: "`answer`",
                      meaning: "the sending team's `/auth/usermigrationinfo` (`sub` and `target`) for a user it has only through an app group it transferred away: answered with a `transfer_sub` while the transfer's 60 days last, as TN3159 promises, or `invalid_client` at once, as a 2026 report on Apple's developer forums describes"),
        ScenarioField("clock", "start", type: "ISO 8601 time", required: "with `frozen`", default: "now",
                      meaning: "the clock's first reading (1970…9999)"),
        ScenarioField("clock", "frozen", type: "boolean", required: "no", default: "`false`",
                      meaning: "stand still until set or advanced"),
        ScenarioField("signingKeys[]", "kid", type: "text", required: "yes", default: "—",
                      meaning: "1–64 letters, digits, `-`, `_`"),
        ScenarioField("signingKeys[]", "alg", type: "`RS256` | `ES256`", required: "no", default: "`RS256`",
                      meaning: "algorithm"),
        ScenarioField("signingKeys[]", "file", type: "path", required: "one of file/pem", default: "—",
                      meaning: "PEM private key, relative to the scenario file"),
        ScenarioField("signingKeys[]", "pem", type: "text", required: "one of file/pem", default: "—",
                      meaning: "PEM private key inline"),
        ScenarioField("signingKeys[]", "signing", type: "boolean", required: "no", default: "first key",
                      meaning: "this key signs tokens (one key at most)"),
        ScenarioField("teams[]", "id", type: "Team ID", required: "yes", default: "—",
                      meaning: "10 uppercase letters or digits"),
        ScenarioField("teams[]", "keys", type: "list", required: "yes", default: "—",
                      meaning: "Sign in with Apple developer keys"),
        ScenarioField("teams[]", "apps", type: "list", required: "yes", default: "—",
                      meaning: "app groups"),
        ScenarioField("teams[]", "emailSources", type: "list of domains and addresses", required: "no", default: "none (the relay refuses every sender)",
                      meaning: "senders the private relay takes mail from for this team's relay addresses; a domain matches exactly (register subdomains on their own)"),
        ScenarioField("teams[].keys[]", "kid", type: "Key ID", required: "yes", default: "—",
                      meaning: "10 uppercase letters or digits"),
        ScenarioField("teams[].keys[]", "file", type: "path", required: "one of file/pem", default: "—",
                      meaning: "`.p8` private key (timelines sign client secrets with it) or public key PEM"),
        ScenarioField("teams[].keys[]", "pem", type: "text", required: "one of file/pem", default: "—",
                      meaning: "the same inline"),
        ScenarioField("teams[].keys[]", "revoked", type: "boolean", required: "no", default: "`false`",
                      meaning: "a revoked key authenticates nothing"),
        ScenarioField("teams[].apps[]", "primaryAppID", type: "text", required: "yes", default: "—",
                      meaning: "names the group; also a native client id"),
        ScenarioField("teams[].apps[]", "bundleIDs", type: "list of text", required: "no", default: "the primary App ID",
                      meaning: "native client ids"),
        ScenarioField("teams[].apps[]", "servicesIDs", type: "list", required: "no", default: "none",
                      meaning: "web client ids"),
        ScenarioField("teams[].apps[]", "notificationURL", type: "URL", required: "no", default: "none (no notifications)",
                      meaning: "where the group's server-to-server notifications are posted (https; loopback http when `allowLoopbackNotificationURLs`)"),
        ScenarioField("teams[].apps[].servicesIDs[]", "id", type: "text", required: "yes", default: "—",
                      meaning: "the Services ID (`client_id`)"),
        ScenarioField("teams[].apps[].servicesIDs[]", "returnURLs", type: "list of URLs", required: "yes", default: "—",
                      meaning: "matched exactly; https only unless `allowLoopbackReturnURLs`"),
        ScenarioField("personas[]", "id", type: "text", required: "yes", default: "—",
                      meaning: "the scenario's handle (not an Apple ID; `sub` is derived from it and the team)"),
        ScenarioField("personas[]", "firstName", type: "text", required: "no", default: "empty",
                      meaning: "name in `user`"),
        ScenarioField("personas[]", "lastName", type: "text", required: "no", default: "empty",
                      meaning: "name in `user`"),
        ScenarioField("personas[]", "email", type: "email or `null`", required: "no", default: "`null`",
                      meaning: "the account's address; `null`: none to share"),
        ScenarioField("personas[]", "emailChoice", type: "`share` | `hide`", required: "no", default: "`share`",
                      meaning: "pre-selected on the consent page"),
        ScenarioField("personas[]", "realUserStatus", type: "`unsupported` | `unknown` | `likelyReal`", required: "no", default: "`likelyReal`",
                      meaning: "`real_user_status` of native first authorizations"),
        ScenarioField("personas[]", "managed", type: "boolean", required: "no", default: "`false`",
                      meaning: "Managed Apple Account: cannot hide its email"),
        ScenarioField("personas[]", "orgID", type: "text", required: "no", default: "none",
                      meaning: "`org_id` of managed accounts"),
        ScenarioField("personas[]", "emailVerified", type: "boolean", required: "no", default: "`true`",
                      meaning: "`email_verified`"),
        ScenarioField("personas[]", "relayForwarding", type: "boolean", required: "no", default: "`true`",
                      meaning: "whether mail to the persona's relay addresses is forwarded: every address's setting, until one is set for an app's team (`PUT /__admin/personas/{id}/relay-forwarding`); changing it sets them all and sends `email-disabled`/`email-enabled`"),
        ScenarioField("autoApprove", "persona", type: "persona id", required: "yes", default: "—",
                      meaning: "who approves"),
        ScenarioField("autoApprove", "emailChoice", type: "`share` | `hide`", required: "no", default: "the persona's",
                      meaning: "sharing on a first consent"),
        ScenarioField("timeline[].expect", "error", type: "Apple error code", required: "no", default: "success expected",
                      meaning: "the step must fail with it"),
        ScenarioField("timeline[].expect", "errorDescription", type: "text", required: "no", default: "unchecked",
                      meaning: "Apple's `error_description`"),
        ScenarioField("timeline[].expect", "user", type: "`present` | `absent`", required: "no", default: "unchecked",
                      meaning: "the `user` field (native: `fullName`)"),
        ScenarioField("timeline[].expect", "claims", type: "mapping", required: "no", default: "unchecked",
                      meaning: "claim → value, `absent` or `present`, on the step's identity token"),
        ScenarioField("timeline[].expect", "signedBy", type: "kid", required: "no", default: "unchecked",
                      meaning: "the token header's `kid`"),
        ScenarioField("timeline[].expect", "verifies", type: "boolean", required: "no", default: "unchecked",
                      meaning: "whether the token verifies against a published key"),
        ScenarioField("timeline[].expect", "notifications", type: "list of notification types", required: "no", default: "unchecked",
                      meaning: "the notification types the step queues, in order (`[]`: none)"),
        ScenarioField("timeline[].expect", "smtpReply", type: "text", required: "no", default: "`250` (accepted)",
                      meaning: "how the relay must answer a `sendMail` step: the start of its reply, e.g. `550 5.1.1`"),
        ScenarioField("timeline[].secret", "issuedAtOffset", type: "seconds", required: "no", default: "`0`",
                      meaning: "added to now for `iat`"),
        ScenarioField("timeline[].secret", "lifetime", type: "seconds", required: "no", default: "`3600`",
                      meaning: "`exp - iat`"),
        ScenarioField("timeline[].secret", "audience", type: "text", required: "no", default: "Apple's",
                      meaning: "`aud`"),
        ScenarioField("timeline[].secret", "subject", type: "text", required: "no", default: "the client id",
                      meaning: "`sub`"),
        ScenarioField("timeline[].secret", "keyID", type: "text", required: "no", default: "the team's key",
                      meaning: "`kid` in the header"),
    ]

    /// The values of an enumeration a key takes, as the reference lists them (`` `a` | `b` ``).
    static func oneOf<Value: CaseIterable & RawRepresentable>(_: Value.Type) -> String where Value.RawValue == String {
        Value.allCases.map { "`\($0.rawValue)`" }.joined(separator: " | ")
    }

    /// The keys of `section`, in documented order.
    static func keys(_ section: String) -> [String] { fields.filter { $0.section == section }.map(\.key) }

    /// The scenario-file reference as a Markdown table: what the README carries between its
    /// `scenario-reference` marks (`mock-appleid scenario reference` prints it; Scripts/generate-references
    /// writes it there).
    public static var referenceTable: String {
        let rows = fields.map { field in
            let cells = ["`\(field.section)`", "`\(field.key)`", field.type, field.required, field.defaultValue, field.meaning]
            return "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        return (["| section | key | type | required | default | meaning |", "|---|---|---|---|---|---|"] + rows).joined(separator: "\n")
    }
}

/// One key a scenario file may use: where, its type, whether it is required, its default and what it does
/// (with the sources of its alternatives, for knobs that replay what Apple was seen to do).
public struct ScenarioField: Sendable {
    /// `top`, `settings`, `teams[].apps[]`, …
    public let section: String
    public let key: String
    /// Markdown, as the reference shows it (a `|` is escaped when the table is made).
    public let type: String
    public let required: String
    public let defaultValue: String
    public let meaning: String

    init(_ section: String, _ key: String, type: String, required: String, default defaultValue: String, meaning: String) {
        self.section = section
        self.key = key
        self.type = type
        self.required = required
        self.defaultValue = defaultValue
        self.meaning = meaning
    }
}
