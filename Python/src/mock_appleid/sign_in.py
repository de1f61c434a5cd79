"""What a headless sign-in hands back."""
import base64
import dataclasses
import json
from typing import Any, Dict, Optional


@dataclasses.dataclass(frozen=True)
class SignIn:
    """A finished sign-in.

    `delivered` is what the browser carried to the redirect URI (code, state, id_token, user, or error),
    `user` the parsed `user` field (sent on a first sign-in with scopes only), and `tokens` the answer of
    /auth/token to the code exchange (None when the exchange was not asked for).
    """
    delivered: Dict[str, str]
    tokens: Optional[Dict[str, Any]] = None

    @property
    def code(self) -> Optional[str]:
        return self.delivered.get("code")

    @property
    def state(self) -> Optional[str]:
        return self.delivered.get("state")

    @property
    def user(self) -> Optional[Dict[str, Any]]:
        return json.loads(self.delivered["user"]) if "user" in self.delivered else None

    @property
    def id_token(self) -> Optional[str]:
        """The token endpoint's identity token, else the one the authorize step delivered."""
        return (self.tokens or {}).get("id_token") or self.delivered.get("id_token")

    @property
    def claims(self) -> Dict[str, Any]:
        """The identity token's claims, decoded WITHOUT verifying the signature: for assertions in
        tests. A relying party verifies with the JWKS at `jwks_url`."""
        if not self.id_token:
            raise ValueError("this sign-in produced no identity token")
        payload = self.id_token.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
