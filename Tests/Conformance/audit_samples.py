"""The sample relying parties the audit's suites play (audit_rp.py with its options), and the verdicts that are not PASS in
each one's audit; the lists of cases the tables are built from."""

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
    "acts-on-every-notification": (["--broken", "notification_types"], {case: "FAIL" for case in NOTIFICATIONS[7:10]}),
    "replays-codes": (["--broken", "replay"], {"callback.replay": "FAIL"}),
    "trusts-user-email": (["--broken", "user_email"], {"callback.user_email_mismatch": "FAIL", "callback.user_email_only": "FAIL"}),
    "unmarked-state-cookie": (["--cookie", "unset"], {"cookies.slow_person": "FAIL"}),
    "native-backend-only-decodes": (["--broken", "native_decode"], {case: "FAIL" for case in NATIVE}),
    "unverified-notifications": (["--broken", "unsigned_notifications"], {case: "FAIL" for case in NOTIFICATIONS[:5]}),
}
