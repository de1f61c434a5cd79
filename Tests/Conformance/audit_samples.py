"""The sample relying parties the audit's suites play (audit_rp.py with its options) and the real libraries they host, with
the verdicts that are not PASS in each one's audit: the tables the suites assert, and docs/audit.md's tables
(Scripts/generate-references writes them from here). Data only: no imports, so that both suites and the script read it."""

FRONT_CHANNEL = ["id_token.signature", "id_token.foreign_key", "id_token.alg_none", "id_token.hs256_public_key",
                 "id_token.alg_none_case", "id_token.alg_none_signed", "id_token.jwk_header", "id_token.x5c_header",
                 "id_token.hs256_key_forms", "id_token.kid_tricks",
                 "id_token.unknown_kid", "id_token.iss", "id_token.aud", "id_token.aud_array", "id_token.expired",
                 "id_token.iat_future", "id_token.nonce", "id_token.nonce_missing", "id_token.c_hash", "id_token.sub_mismatch",
                 "id_token.missing_sub", "id_token.missing_iss", "id_token.missing_aud", "id_token.missing_exp", "id_token.missing_iat",
                 "id_token.sub_array", "id_token.sub_duplicate", "id_token.iat_stale", "id_token.exp_huge", "id_token.claim_types", "id_token.crit_unknown",
                 "id_token.alg_other_rsa"]
# How the relying party uses the front-channel id_token at all, judged once each.
FRONT_CHANNEL_USE = ["id_token.unvalidated", "id_token.nonce_not_sent"]

NATIVE = ["native.signature", "native.aud", "native.expired", "native.nonce", "native.other_team", "native.aud_same_team_other_app"]
NOTIFICATIONS = ["notifications.forged", "notifications.aud", "notifications.iss", "notifications.expired", "notifications.replay",
                 "notifications.consent_revoked", "notifications.account_delete", "notifications.email_disabled",
                 "notifications.email_enabled", "notifications.unknown_type", "notifications.retried"]
# The sample audited without --native and --notifications.
WITHOUT_BACKENDS = "code-flow"

# Every sample relying party, and the verdicts that are not PASS in its audit. Where an earlier audit judged a sample
# otherwise, its comment says how (the samples it never saw: what it said of them).
SAMPLES = {
    "correct": ([], {}),
    WITHOUT_BACKENDS: (["--flow", "code"], {**{case: "SKIP" for case in FRONT_CHANNEL_USE + FRONT_CHANNEL + NATIVE + NOTIFICATIONS},
                                            "token_id_token.sub_mismatch": "SKIP"}),
    # It never reads the id_token that comes with the code and signs in from the token endpoint's, which it verifies:
    # one WARN for the root cause. Before, all 14 front-channel cases and token_id_token.sub_mismatch FAILed or WARNed.
    "ignores-the-front-channel": (["--broken", "front_channel"], {
        "id_token.unvalidated": "WARN", **{case: "SKIP" for case in FRONT_CHANNEL},
        "token_id_token.sub_mismatch": "SKIP"}),
    # A new sub whose email an account has stops at a 200 sign-up page. Before: PASS for token_id_token.sub_mismatch
    # (the signed-in page answered 401), FAIL for id_token.sub_mismatch (it signs in the token endpoint's person).
    "stops-at-a-sign-up-page": (["--broken", "signup"], {"id_token.sub_mismatch": "WARN", "token_id_token.sub_mismatch": "INCONCLUSIVE",
                                                         "id_token.sub_duplicate": "WARN"}),
    # It takes the user JSON's email when the token has none (no case saw it before: every verdict was PASS).
    "trusts-user-email-when-the-token-has-none": (["--broken", "user_email_fallback"], {"callback.user_email_only": "FAIL"}),
    # Decoding without the signature, it also checks exp and iat only where they are (PyJWT requires no claim unless told):
    # a token without exp or iat signs in, from either channel. A token without sub, or with an array, breaks its own same-person check after
    # it exchanged the code.
    "no-signature-check": (["--broken", "signature"], {
        "id_token.signature": "FAIL", "id_token.foreign_key": "FAIL", "id_token.alg_none": "FAIL",
        "id_token.hs256_public_key": "FAIL", "id_token.alg_none_case": "FAIL", "id_token.alg_none_signed": "FAIL",
        "id_token.jwk_header": "FAIL", "id_token.unknown_kid": "FAIL", "id_token.missing_sub": "WARN", "id_token.missing_exp": "FAIL",
        "id_token.missing_iat": "WARN", "id_token.sub_array": "WARN", "token_id_token.missing_exp": "FAIL", "token_id_token.missing_iat": "WARN",
        "token_id_token.signature": "WARN", "token_id_token.foreign_key": "WARN", "token_id_token.alg_none": "WARN",
        "token_id_token.hs256_public_key": "WARN", "token_id_token.unknown_kid": "WARN", "keys.unreachable": "FAIL",
        "id_token.alg_other_rsa": "WARN", "token_id_token.alg_other_rsa": "WARN", "id_token.x5c_header": "FAIL", "id_token.hs256_key_forms": "FAIL",
        "id_token.kid_tricks": "FAIL"}),
    # It takes "none" as unsigned whatever follows, but compares it case-sensitively (NoNe goes to RS256 and is refused).
    "algorithm-from-the-token": (["--broken", "algorithm"], {
        "id_token.alg_none": "FAIL", "id_token.hs256_public_key": "FAIL", "id_token.alg_none_signed": "FAIL",
        "token_id_token.alg_none": "WARN", "token_id_token.hs256_public_key": "WARN"}),
    "no-aud-check": (["--broken", "aud"], {"id_token.aud": "FAIL", "id_token.aud_array": "FAIL", "token_id_token.aud": "FAIL",
                                           "token_id_token.aud_array": "FAIL"}),
    "no-nonce-check": (["--broken", "nonce"], {"id_token.nonce": "FAIL", "id_token.nonce_missing": "FAIL",
                                               "token_id_token.nonce": "FAIL", "token_id_token.nonce_missing": "FAIL"}),
    # It redeems a replayed callback's code again, which only Apple's invalid_grant stops (before: PASS).
    "no-state-check": (["--broken", "state"], {"callback.state_missing": "FAIL", "callback.state_wrong": "FAIL", "callback.replay": "WARN"}),
    # An expired exp written as a string is expired too.
    "no-exp-check": (["--broken", "exp"], {"id_token.expired": "FAIL", "token_id_token.expired": "FAIL", "id_token.claim_types": "FAIL",
                                           "token_id_token.claim_types": "FAIL"}),
    # No largest age or lifetime of a token (PyJWT has none): a week-old iat and an exp of 1e20 sign in.
    "no-token-age-bound": (["--broken", "token_age"], {"id_token.iat_stale": "WARN", "id_token.exp_huge": "WARN", "token_id_token.iat_stale": "WARN",
                                                       "token_id_token.exp_huge": "WARN"}),
    "reuses-its-nonce": (["--broken", "nonce_reuse"], {"request.nonce_fresh": "FAIL"}),
    "takes-a-query-callback": (["--broken", "response_mode"], {"callback.response_mode_mismatch": "WARN"}),
    # It matches accounts by email, case-insensitively: ſ folds to s, so a look-alike enters the known person's account.
    "matches-accounts-by-email": (["--broken", "email_match"], {"callback.email_lookalike": "FAIL"}),
    # It wants the token endpoint's answer exactly as Apple usually shapes it.
    "strict-token-response": (["--broken", "token_shape"], {"token.shape": "FAIL"}),
    "acts-on-every-notification": (["--broken", "notification_types"], {case: "FAIL" for case in NOTIFICATIONS[7:10]}),
    "replays-codes": (["--broken", "replay"], {"callback.replay": "FAIL"}),
    "trusts-user-email": (["--broken", "user_email"], {"callback.user_email_mismatch": "FAIL", "callback.user_email_only": "FAIL"}),
    "unmarked-state-cookie": (["--cookie", "unset"], {"cookies.slow_person": "FAIL"}),
    "native-backend-only-decodes": (["--broken", "native_decode"], {case: "FAIL" for case in NATIVE}),
    "unverified-notifications": (["--broken", "unsigned_notifications"], {case: "FAIL" for case in NOTIFICATIONS[:5]}),
}

# What each sample leaves out, as docs/audit.md's table says.
LEAVES_OUT = {
    'strict-token-response': "tolerance of the token response's shape (it wants `token_type` `Bearer`, capitalised, and an `expires_in`)",
    'correct': 'nothing (`response_type=code id_token`)',
    'code-flow': 'nothing, but asks for `response_type=code`, and is audited without `--native` and `--notifications`',
    'ignores-the-front-channel': "reading the identity token that comes with the code (it asks for `code id_token` and signs in from the token endpoint's, which it verifies)",
    'stops-at-a-sign-up-page': "comparing the two tokens' people; a new `sub` whose email an account has is sent to a 200 sign-up page (`/signup`) instead",
    'trusts-user-email-when-the-token-has-none': "the token's email when it has none (it takes the `user` JSON's then)",
    'no-signature-check': 'the signature',
    'algorithm-from-the-token': "the algorithm check (it takes `alg` from the token, and the public key's PEM as an HMAC key)",
    'no-aud-check': '`aud`',
    'no-nonce-check': '`nonce`',
    'no-state-check': '`state`',
    'no-exp-check': '`exp`',
    'replays-codes': 'exchanging a code it has seen (it reuses the first result)',
    'trusts-user-email': "the token's email (it takes the `user` JSON's whenever it names one)",
    'unmarked-state-cookie': '`SameSite=None; Secure` on its state cookie (no `SameSite`)',
    'native-backend-only-decodes': 'every check of the token its iOS app posts (it only decodes it)',
    'unverified-notifications': 'every check of a notification (it only decodes it, and acts on each posting)',
    'no-token-age-bound': 'a largest age and lifetime of a token (PyJWT has none: it checks `exp` and `iat` against now only)',
    'reuses-its-nonce': 'a new nonce per sign-in (it sends one nonce, made when it starts)',
    'takes-a-query-callback': "the response mode it asked for (its callback takes Apple's answer by GET too)",
    'acts-on-every-notification': "the notification's type (it ends the person's sessions on any genuine notification)",
    'matches-accounts-by-email': 'the `sub` as the only key of an account (it signs a person in to the account whose email matches theirs case-insensitively)',
}

# The cases of the backends the library sites do not have.
BACKENDS = NATIVE + NOTIFICATIONS

# social-core's AppleIdAuth asks for response_type=code and sends no nonce, and the site has no iOS backend or
# notification endpoint: those cases do not apply. It verifies the token endpoint's identity token with PyJWT,
# which takes an aud array that contains the client.
SOCIAL_CORE_NOT_PASSING = {
    **{case: "SKIP" for case in FRONT_CHANNEL_USE + FRONT_CHANNEL + BACKENDS},
    **{case: "SKIP" for case in ("token_id_token.nonce", "token_id_token.nonce_missing", "token_id_token.sub_mismatch", "request.nonce_fresh")},
    "token_id_token.aud_array": "FAIL", "token_id_token.missing_exp": "FAIL", "token_id_token.missing_iat": "WARN",
    "token_id_token.iat_stale": "WARN", "token_id_token.exp_huge": "WARN", "request.pkce": "WARN",
}

# authlib asks for response_type=code, so the front-channel cases do not apply, and the sample has no iOS
# backend or notification endpoint. authlib verifies the token endpoint's identity token fully and fetches the
# keys again for a new kid. It keeps its state in Flask's session cookie, which Flask marks with no SameSite: a
# person three minutes on Apple's page comes back without it. The sample's callback, written as authlib's
# documentation shows, lets authlib's errors through as a 500. Its state lives in that cookie too, so a form_post
# delivered again with the cookies of the first has its state, and authlib redeems the code again: only Apple's
# invalid_grant stops it (a WARN; before, a PASS). authlib checks a token's azp, not its aud: a token Apple made for
# another app (no azp) is refused for lacking one, but a token for this client and another audience whose azp names
# this client passes (before, when the audit's token had no azp, it was refused too, and the case PASSed).
AUTHLIB_NOT_PASSING = {
    **{case: "SKIP" for case in FRONT_CHANNEL_USE + FRONT_CHANNEL + BACKENDS}, "token_id_token.sub_mismatch": "SKIP",
    "token_id_token.aud_array": "FAIL", "callback.cancel": "WARN", "token.invalid_grant": "WARN",
    "token.server_error": "WARN", "cookies.slow_person": "FAIL", "callback.replay": "WARN",
    # Its client sends no PKCE challenge unless configured to, and its claims check bounds neither a token's age (a week-old
    # iat) nor its lifetime (an exp of 1e20).
    "request.pkce": "WARN", "token_id_token.iat_stale": "WARN", "token_id_token.exp_huge": "WARN",
}

# allauth asks for response_type=code id_token without a nonce and never reads the id_token that comes with the code:
# it signs in from the token endpoint's, which it verifies. That is one root cause, judged once (id_token.unvalidated,
# and id_token.nonce_not_sent, both WARNs); the front-channel cases that break that token cannot harm it. Before, the
# 14 front-channel cases FAILed (id_token.iat_future WARNed) as if forged tokens had been accepted. It verifies that token
# with PyJWT's decode given an issuer and an audience but no `require`: PyJWT checks exp and iat only where the token has
# them, so a token without exp (token_id_token.missing_exp) or iat (missing_iat, a should) signs in.
ALLAUTH_NOT_PASSING = {"id_token.unvalidated": "WARN", "id_token.nonce_not_sent": "WARN", **{case: "SKIP" for case in FRONT_CHANNEL},
                       "token_id_token.sub_mismatch": "SKIP", "token_id_token.aud_array": "FAIL", "token_id_token.missing_exp": "FAIL",
                       "token_id_token.missing_iat": "WARN",
                       "token_id_token.nonce": "SKIP", "token_id_token.nonce_missing": "SKIP", **{case: "SKIP" for case in BACKENDS},
                       # Its state is 16 letters and digits (about 95 bits); it sends no nonce and, for Apple, no PKCE. It takes
                       # the algorithm from the token's header (jwtkit's fetch_key): an RS512 token signed with Apple's key passes.
                       # PyJWT bounds neither a token's age nor its lifetime.
                       "request.state": "WARN", "request.nonce_fresh": "SKIP", "request.pkce": "WARN",
                       "token_id_token.alg_other_rsa": "WARN", "token_id_token.iat_stale": "WARN", "token_id_token.exp_huge": "WARN"}

# Each real library the suites host: how, as docs/audit.md's table says, and its verdicts other than PASS.
LIBRARIES = {
    "social-core": ("`AppleIdAuth` (python-social-auth's backend) in `Tests/Conformance/social_core_web_rp.py`: a session cookie marked `SameSite=None; Secure`, `auth_url()` and `auth_complete()`, the session id rotated at sign-in, its three Apple URLs pointed at the audit's server", SOCIAL_CORE_NOT_PASSING),
    "authlib": ("the Flask site of `Tests/PythonPackage/flask_rp`, written as authlib's documentation shows, configured through discovery", AUTHLIB_NOT_PASSING),
    "django-allauth": ("its Apple provider in the Django site of `Tests/PythonPackage/django_rp` (Django's default `Lax` session cookie), led to a running server by Apple's host names and audited through it", ALLAUTH_NOT_PASSING),
}
