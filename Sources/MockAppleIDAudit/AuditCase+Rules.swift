extension AuditCase {
    private static let idTokenValidation = "OpenID Connect Core 1.0 section 3.1.3.7 (ID token validation); Apple: Verifying a user"
    private static let jwtPractices = "RFC 8725 sections 2.1 and 3.1 (JWT best practices: algorithm choice)"
    private static let hybridValidation = "OpenID Connect Core 1.0 section 3.3.2.11 (hybrid flow: c_hash)"
    private static let requiredClaims = "OpenID Connect Core 1.0 section 2 (the ID token's REQUIRED claims: iss, sub, aud, exp, iat)"
    private static let subjectString = "OpenID Connect Core 1.0 section 2 (sub: a case-sensitive string); RFC 7519 section 4.1.2"
    private static let stateRule = "RFC 6749 section 10.12 and RFC 9700 section 4.7 (CSRF protection with state)"

    /// The case's rule: what Apple's side does, what the relying party must do, and the reference.
    public var rule: Rule {
        switch self {
        case .requestState: return ask("nothing unusual: the honest sign-in's authorize request is judged",
                                       "send a state that cannot be guessed (at least 128 bits; fewer by its length and alphabet is a should)",
                                       "RFC 6749 sections 10.10 and 10.12 (state: CSRF protection, guessable at most 2^-128)")
        case .requestStateFresh: return ask("a second sign-in is begun in another browser, and its authorize request compared with the honest one's",
                                            "send a new state for each sign-in", Self.stateRule)
        case .requestNonceFresh: return ask("a second sign-in is begun in another browser, and its authorize request compared with the honest one's",
                                            "send a new nonce for each sign-in (a nonce used twice lets a captured token be replayed)",
                                            "OpenID Connect Core 1.0 section 15.5.2 (nonce implementation notes)")
        case .requestRedirectURI: return ask("nothing unusual: the honest sign-in's authorize request is judged",
                                             "use an https redirect_uri (plain http only on a loopback host)", "RFC 9700 section 4.1.1 (redirect URIs); "
                                             + "Apple: Configure Sign in with Apple for the web (return URLs are https)")
        case .requestPKCE: return ask("nothing unusual: the honest sign-in's authorize request is judged",
                                      "send a PKCE code_challenge with method S256 (Apple documents no PKCE; it takes one)",
                                      "RFC 9700 section 2.1.1 (PKCE for every client); RFC 7636", warning: true)
        case .idTokenIssuedLongAgo, .tokenIDTokenIssuedLongAgo:
            return refuse("\(tokenName)'s iat is a week ago, and its exp still ahead", "refuse a token issued long ago (Apple's live a day at most)",
                          "OpenID Connect Core 1.0 section 3.1.3.7, step 10 (iat can be used to reject tokens issued too far from the current time)",
                          warning: true)
        case .idTokenExpiryFarFuture, .tokenIDTokenExpiryFarFuture:
            return refuse("\(tokenName)'s exp is 1e20, a time no 64-bit integer holds", "refuse a lifetime beyond any Apple gives, "
                          + "and answer without a 5xx", Self.numericDate, warning: true)
        case .idTokenExpiryAsString, .tokenIDTokenExpiryAsString:
            return refuse("\(tokenName)'s exp is a string, of a time an hour ago", "check exp whatever its type (refuse one that is not a number, or that "
                          + "has passed)", Self.numericDate)
        case .idTokenUnknownCritical, .tokenIDTokenUnknownCritical:
            return refuse("\(tokenName) is signed by Apple's key, and its header's crit names an extension no relying party knows",
                          "refuse a token with a critical extension it does not understand", "RFC 7515 section 4.1.11 (crit)", warning: true)
        case .idTokenOtherAlgorithm, .tokenIDTokenOtherAlgorithm:
            return refuse("\(tokenName) is signed by Apple's key under RS512 (ES384 for an EC key), though /auth/keys publishes that key for RS256",
                          "accept RS256 only (the algorithm the key is published for)", Self.jwtPractices, warning: true)
        case .idTokenUnvalidated: return refuse("the front-channel id_token has a broken signature and names another person; the token endpoint's is honest",
                                                "validate the id_token it asks for, or ask for response_type=code (an id_token it ignores is a should: "
                                                + "a WARN; signing in the person it names is a FAIL)",
                                                "OpenID Connect Core 1.0 section 3.3.2.12 (hybrid flow: ID token validation)")
        case .idTokenNonceNotSent: return Rule(appleSide: "nothing unusual: the honest sign-in's authorize request is judged",
                                               expectation: .ask, rpMust: "send a nonce when it asks for response_type=code id_token "
                                               + "(a should when it never reads that id_token)", missIsWarning: false,
                                               reference: "OpenID Connect Core 1.0 section 3.3.2.11 (hybrid flow: nonce is required)")
        case .idTokenSignature: return refuse("the front-channel id_token's signature does not verify", "check the signature", Self.idTokenValidation)
        case .idTokenForeignKey: return refuse("the front-channel id_token is signed by a key that /auth/keys does not publish, under the kid of one that it does",
                                               "check the signature against the published key", Self.idTokenValidation)
        case .idTokenAlgNone: return refuse("the front-channel id_token says alg none and has no signature", "accept RS256 only", Self.jwtPractices)
        case .idTokenHS256PublicKey: return refuse("the front-channel id_token is HS256, keyed with Apple's public key",
                                                   "accept RS256 only", Self.jwtPractices)
        case .idTokenAlgNoneMixedCase: return refuse("the front-channel id_token says alg NoNe (none in mixed case) and has no signature",
                                                     "accept RS256 only", Self.jwtPractices)
        case .idTokenAlgNoneSigned: return refuse("the front-channel id_token says alg none, and carries a signature that no published key verifies",
                                                  "accept RS256 only", Self.jwtPractices)
        case .idTokenCarriesItsOwnKey: return refuse("the front-channel id_token is signed by a key /auth/keys does not publish, under the kid of one that it does, "
                                                     + "and carries that key in its header (jwk)",
                                                     "verify with Apple's published key, never a key the token brings", "RFC 7515 sections 4.1.3 (jwk) and 10.3 "
                                                     + "(key origin authentication)")
        case .idTokenCarriesItsCertificate: return refuse("the front-channel id_token is signed by an attacker's key under Apple's kid, with the "
                                                          + "attacker's self-signed certificate (subject appleid.apple.com) in its header (x5c)",
                                                          "verify with Apple's published key, never a certificate the token brings",
                                                          "RFC 7515 sections 4.1.6 (x5c) and 10.3 (key origin authentication)")
        case .idTokenHS256KeyForms: return refuse("the front-channel id_token is HS256, keyed with Apple's public key in each other form (its DER, its PEM "
                                                  + "without the final newline, its JWK's JSON, its modulus's bytes), one sign-in each",
                                                  "accept RS256 only", Self.jwtPractices)
        case .idTokenKidTricks: return refuse("the front-channel id_token's kid is a path to an empty file (HS256 keyed with nothing), an SQL injection "
                                              + "(HS256 keyed with what it selects), or the attacker's public JWK (signed by that key), one sign-in each",
                                              "look kid up among Apple's published keys only", "RFC 7515 section 4.1.4 (kid); RFC 8725 section 3.10 "
                                              + "(do not trust received claims)")
        case .idTokenSubjectDuplicate: return refuse("the front-channel id_token names sub twice (a JSON member repeated): the person's, then another's",
                                                     "refuse a token whose claims repeat a name (parsers differ on which they take; only Apple's key "
                                                     + "could sign it, so a miss is a should)", "RFC 7515 section 5.2 and RFC 7519 section 4 (claim "
                                                     + "names are unique)", warning: true)
        case .idTokenUnknownKid: return refuse("the front-channel id_token names a kid that /auth/keys does not publish",
                                               "refuse a token it cannot verify", Self.idTokenValidation)
        case .idTokenIssuer: return refuse("the front-channel id_token's iss is not https://appleid.apple.com", "check iss", Self.idTokenValidation)
        case .idTokenAudience: return refuse("the front-channel id_token's aud is another client of the same team", "check aud", Self.idTokenValidation)
        case .idTokenAudienceArray: return refuse("the front-channel id_token's aud is an array: the client and another audience (its azp is the client)",
                                                  "refuse an extra audience it does not trust", Self.idTokenValidation)
        case .idTokenExpired: return refuse("the front-channel id_token expired an hour ago", "check exp", Self.idTokenValidation)
        case .idTokenIssuedInFuture: return refuse("the front-channel id_token's iat is an hour ahead", "refuse a token issued in the future",
                                                   "OpenID Connect Core 1.0 section 3.1.3.7, step 10 (iat can be used to reject tokens)", warning: true)
        case .idTokenNonce: return refuse("the front-channel id_token's nonce is not the one the relying party sent", "check nonce",
                                          Self.idTokenValidation)
        case .idTokenNonceMissing: return refuse("the front-channel id_token has no nonce although the relying party sent one",
                                                 "check nonce", Self.idTokenValidation)
        case .idTokenCodeHash: return refuse("the front-channel id_token's c_hash does not match the code", "check c_hash",
                                             Self.hybridValidation)
        case .idTokenSubjectMismatch: return refuse("the front-channel id_token names another person (sub) than the token endpoint's",
                                                    "check that both tokens name the same sub", "OpenID Connect Core 1.0 section 3.3.3.6 (hybrid flow: same iss and sub)")
        case .idTokenMissingSubject, .tokenIDTokenMissingSubject:
            return missing("sub", "require sub (a person signed in without one shows none: the signed-in page's status, or else its email, tells)")
        case .idTokenMissingIssuer, .tokenIDTokenMissingIssuer: return missing("iss", "require iss")
        case .idTokenMissingAudience, .tokenIDTokenMissingAudience: return missing("aud", "require aud")
        case .idTokenMissingExpiry, .tokenIDTokenMissingExpiry: return missing("exp", "require exp (a token without one never expires)")
        case .idTokenMissingIssuedAt, .tokenIDTokenMissingIssuedAt: return missing("iat", "require iat", warning: true)
        case .idTokenSubjectArray, .tokenIDTokenSubjectArray:
            return refuse("\(tokenName)'s sub is an array: the person's sub and another", "refuse a sub that is not one string", Self.subjectString)
        case .tokenIDTokenSignature: return refuse("/auth/token's id_token has a signature that does not verify", "check the signature",
                                                   Self.tokenEndpointGrading, warning: true)
        case .tokenIDTokenForeignKey: return refuse("/auth/token's id_token is signed by a key /auth/keys does not publish, under the kid of one that it does",
                                                    "check the signature against the published key", Self.tokenEndpointGrading, warning: true)
        case .tokenIDTokenAlgNone: return refuse("/auth/token's id_token says alg none and has no signature (nor at_hash)", "accept RS256 only",
                                                 Self.tokenEndpointGrading, warning: true)
        case .tokenIDTokenHS256PublicKey: return refuse("/auth/token's id_token is HS256, keyed with Apple's public key", "accept RS256 only",
                                                        Self.tokenEndpointGrading, warning: true)
        case .tokenIDTokenAudienceArray: return refuse("/auth/token's id_token's aud is an array: the client and another audience (its azp is the client)",
                                                       "refuse an extra audience it does not trust", Self.tokenEndpointGrading)
        case .tokenIDTokenNonce: return refuse("/auth/token's id_token's nonce is not the one the relying party sent", "check nonce",
                                               Self.tokenEndpointGrading)
        case .tokenIDTokenSubjectMismatch: return refuse("/auth/token's id_token names another person (sub) than the front channel's",
                                                         "check that both tokens name the same sub", "OpenID Connect Core 1.0 section 3.3.3.6 (hybrid flow: same iss and sub)",
                                                         warning: true)
        case .tokenIDTokenUnknownKid: return refuse("/auth/token's id_token names a kid that /auth/keys does not publish",
                                                    "refuse a token it cannot verify", Self.tokenEndpointGrading, warning: true)
        case .tokenIDTokenIssuer: return refuse("/auth/token's id_token's iss is not https://appleid.apple.com", "check iss", Self.tokenEndpointGrading)
        case .tokenIDTokenAudience: return refuse("/auth/token's id_token's aud is another client id", "check aud", Self.tokenEndpointGrading)
        case .tokenIDTokenExpired: return refuse("/auth/token's id_token expired an hour ago", "check exp", Self.tokenEndpointGrading)
        case .tokenIDTokenIssuedInFuture: return refuse("/auth/token's id_token's iat is an hour ahead", "refuse a token issued in the future",
                                                        Self.tokenEndpointGrading, warning: true)
        case .tokenIDTokenNonceMissing: return refuse("/auth/token's id_token has no nonce although the relying party sent one", "check nonce",
                                                      Self.tokenEndpointGrading)
        case .callbackStateMissing: return refuse("the form_post carries no state", "require state", Self.stateRule)
        case .callbackStateWrong: return refuse("the form_post's state is not the one the relying party sent", "check state", Self.stateRule)
        case .callbackStateOtherSession: return refuse("the form_post carries another browser session's state, code and id_token",
                                                       "bind state to the browser session", Self.stateRule)
        case .callbackReplay: return refuse("the same form_post is delivered a second time, with the cookies the first one had",
                                            "use each code once (Apple answers invalid_grant to a second exchange)", "RFC 6749 section 4.1.2 (single-use codes)")
        case .callbackCancel: return refuse("the form_post is error=user_cancelled_authorize", "not sign in, and answer without a 5xx",
                                            "Apple: Incorporating Sign in with Apple into other platforms (errors)")
        case .callbackUserEmailMismatch: return accept("a person it has never seen signs in, and the form_post's user JSON names another email than the id_token",
                                                       "sign in with the id_token's email, never the user JSON's", Self.userJSON)
        case .callbackUserEmailOnly: return accept("a person it has never seen, with no email, signs in: the id_token has none and the form_post's user JSON names one",
                                                   "never take the user JSON's email as the person's (verified) email", Self.userJSON)
        case .callbackUserOnReturn: return accept("a returning sign-in carries a user JSON (Apple sends it on the first consent only)",
                                                  "sign the person in", Self.userJSON)
        case .callbackNoEmail: return accept("the person shares no email: the id_token has none and the user JSON no email",
                                             "sign the person in without an email", Self.userJSON)
        case .callbackRelayEmail: return accept("the person hides their email: the id_token has a private relay address",
                                                "sign the person in with the relay address", Self.userJSON)
        case .callbackRelayNewDomain: return accept("a person it has never seen hides their email: the id_token has a relay address at "
                                                    + "private.icloud.com, where Apple gives new ones out since 2026",
                                                    "sign the person in as it does with a privaterelay.appleid.com address", Self.userJSON)
        case .callbackEmailLookalike: return Rule(appleSide: "after the audit's person signs in, a person it has never seen signs in with an email that differs "
                                                    + "from theirs only by a look-alike letter (the Kelvin sign for k, ſ for s, ı for i, whose case mapping gives the "
                                                    + "ASCII letter back; else a Cyrillic twin)",
                                                    expectation: .acceptOrRefuse, rpMust: "never let the new person into the other's account "
                                                    + "(an account of their own, by sub, or a refusal, is fine)", missIsWarning: false,
                                                    reference: "OpenID Connect Core 1.0 section 5.7 (only iss and sub identify a person); Unicode "
                                                    + "Technical Standard 39 (confusables)")
        case .callbackResponseModeMismatch: return refuse("the honest answer arrives as a GET with a query, though the relying party asked for "
                                                          + "response_mode=form_post", "take Apple's answer only as it asked for it (a code in a URL "
                                                          + "reaches logs and Referer headers; its state check still binds it to the browser, so a "
                                                          + "miss is a should)", "RFC 9700 section 4.2 (credential leakage via Referer headers); "
                                                          + "OAuth 2.0 Form Post Response Mode", warning: true)
        case .callbackStringBooleans: return accept("both identity tokens (the front channel's and the token endpoint's) have email_verified and "
                                                    + "is_private_email as the strings \"true\"/\"false\"",
                                                    "accept both strings and booleans", "Apple: Authenticating users with Sign in with Apple (claims)")
        case .cookiesSlowPerson: return accept("the person spends three minutes on Apple's page before the form_post",
                                               "keep its state cookie across a cross-site POST (SameSite=None; Secure)",
                                               "RFC 6265bis section 5.6.7 (SameSite; Chromium's two-minute Lax-allowing-unsafe window)")
        case .tokenInvalidGrant: return refuse("/auth/token answers invalid_grant", "not sign in, and answer without a 5xx", Self.tokenErrors)
        case .tokenServerError: return refuse("/auth/token answers 503", "not sign in, and answer without a 5xx", Self.tokenErrors)
        case .tokenShape: return accept("/auth/token answers with token_type \"bearer\" in lower case and no expires_in",
                                        "sign the person in (token_type is case-insensitive, and expires_in only recommended)",
                                        "RFC 6749 sections 5.1 and 7.1 (token_type is case-insensitive; expires_in is RECOMMENDED)")
        case .tokenSlow: return Rule(appleSide: "/auth/token answers after 10 seconds", expectation: .acceptOrRefuse,
                                     rpMust: "sign in when the answer comes, or refuse cleanly", missIsWarning: true, reference: Self.tokenErrors)
        case .nativeSignature: return refuse("the identity token the app posts has a signature that does not verify",
                                             "verify it as any identity token", Self.nativeValidation)
        case .nativeAudience: return refuse("the identity token the app posts has another client of the team as aud (a second Services ID), not the app's bundle ID",
                                            "check that aud is its bundle ID", Self.nativeValidation)
        case .nativeExpired: return refuse("the identity token the app posts expired an hour ago", "check exp", Self.nativeValidation)
        case .nativeNonce: return refuse("the identity token the app posts carries another nonce than the app sent", "check nonce",
                                         Self.nativeValidation)
        case .nativeOtherTeam: return refuse("the app posts a genuine identity token, signed by Apple, for another team's app",
                                             "check that aud is its bundle ID", Self.nativeValidation)
        case .nativeSameTeamOtherApp: return refuse("the app posts a genuine identity token, signed by Apple, for another app of the same team "
                                                    + "(same sub: a team's apps share it; one made up beside the bundle ID when the scenario has no "
                                                    + "other)", "check that aud is its own bundle ID (or one of the apps it serves on purpose)",
                                                    Self.nativeValidation)
        case .notificationsEmailDisabled: return acknowledge("a genuine email-disabled notification (the person stopped mail to the relay address)")
        case .notificationsEmailEnabled: return acknowledge("a genuine email-enabled notification (the person allows mail to the relay address again)")
        case .notificationsUnknownType: return acknowledge("a genuine notification of a type Apple has not sent yet")
        case .notificationsRetried: return Rule(appleSide: "a genuine consent-revoked notification delivered twice, as Apple retries one whose answer "
                                                + "timed out", expectation: .act, rpMust: "answer the repeat 2xx too (the session it ended stays ended)",
                                                missIsWarning: true, reference: Self.notificationRule)
        case .notificationsForged: return ignore("a consent-revoked notification signed by a key /auth/keys does not publish",
                                                 "verify the signature", Self.notificationRule)
        case .notificationsAudience: return ignore("a consent-revoked notification whose aud is another app", "check aud", Self.notificationRule)
        case .notificationsIssuer: return ignore("a consent-revoked notification whose iss is not https://appleid.apple.com", "check iss",
                                                 Self.notificationRule)
        case .notificationsExpired: return ignore("a consent-revoked notification that expired an hour ago", "check exp", Self.notificationRule)
        case .notificationsReplay: return Rule(appleSide: "a genuine consent-revoked notification posted again, after the person signed in again",
                                               expectation: .ignore, rpMust: "act on each jti once (a 2xx to a repeat is fine: Apple retries with the same jti)",
                                               missIsWarning: false, reference: Self.notificationRule)
        case .notificationsConsentRevoked: return Rule(appleSide: "a genuine consent-revoked notification", expectation: .act,
                                                       rpMust: "end the person's sessions and answer 2xx", missIsWarning: true, reference: Self.notificationRule)
        case .notificationsAccountDelete: return Rule(appleSide: "a genuine account-delete notification", expectation: .act,
                                                      rpMust: "end the person's sessions and answer 2xx", missIsWarning: true, reference: Self.notificationRule)
        case .keysRotation: return accept("Apple signs with a new key (new kid) after the relying party cached /auth/keys",
                                          "fetch /auth/keys again for an unknown kid", "Apple: Fetch Apple's public key for verifying token signature")
        case .keysUnreachable: return refuse("Apple signs with a new key and /auth/keys answers 503",
                                             "refuse a token it cannot verify (a should for an RP that asks for response_type=code)", Self.idTokenValidation)
        }
    }

    private static let numericDate = "RFC 7519 sections 2 and 4.1.4 (exp is a NumericDate: a JSON number)"
    private static let userJSON = "Apple: Incorporating Sign in with Apple into other platforms (the user object)"
    private static let tokenErrors = "Apple: Generate and validate tokens (error responses)"
    private static let tokenEndpointGrading = "OpenID Connect Core 1.0 section 3.1.3.7 (TLS may stand in for the signature of a token fetched directly)"

    /// The token a case breaks, as its rule names it.
    private var tokenName: String { id.hasPrefix("id_token.") ? "the front-channel id_token" : "/auth/token's id_token" }

    /// A case whose token lacks `claim`, which OpenID Connect requires.
    private func missing(_ claim: String, _ must: String, warning: Bool = false) -> Rule {
        refuse("\(tokenName) has no \(claim)", must, Self.requiredClaims, warning: warning)
    }

    private func refuse(_ apple: String, _ must: String, _ reference: String, warning: Bool = false) -> Rule {
        Rule(appleSide: apple, expectation: .refuse, rpMust: must, missIsWarning: warning, reference: reference)
    }

    private static let nativeValidation = "Apple: Verifying a user (the identity token from AuthenticationServices)"
    private static let notificationRule = "Apple: Processing changes for Sign in with Apple accounts (server-to-server notifications)"

    private func ignore(_ apple: String, _ must: String, _ reference: String) -> Rule {
        Rule(appleSide: apple, expectation: .ignore, rpMust: must + ", not act on it, and (a should) answer non-2xx", missIsWarning: false,
             reference: reference)
    }

    private func ask(_ apple: String, _ must: String, _ reference: String, warning: Bool = false) -> Rule {
        Rule(appleSide: apple, expectation: .ask, rpMust: must, missIsWarning: warning, reference: reference)
    }

    private func acknowledge(_ apple: String) -> Rule {
        Rule(appleSide: apple, expectation: .acknowledge, rpMust: "keep the person's sessions (it revokes nothing), and (a should) answer 2xx",
             missIsWarning: false, reference: Self.notificationRule)
    }

    private func accept(_ apple: String, _ must: String, _ reference: String) -> Rule {
        Rule(appleSide: apple, expectation: .accept, rpMust: must, missIsWarning: false, reference: reference)
    }
}
