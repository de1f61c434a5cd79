"""A running server, as a test sees it: its URLs, the admin API, a headless sign-in, client secrets."""
import contextlib
import os
import pathlib
import re
import subprocess
import urllib.parse
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from .apple_hosts import APPLE_HOSTS, apple_hosts_at
from .audit import AuditReport, audit
from .developer_key import BUILT_IN_KEYS
from .errors import MockAppleIDError
from .pages import read_form, read_web_message
from .ready import ServerInfo
from .sign_in import SignIn
from .transport import Answer, call

#: The built-in scenario's web client and a return URL it registers.
DEFAULT_CLIENT_ID = "com.example.web"
DEFAULT_REDIRECT_URI = "http://localhost:3000/auth/apple/callback"


def _camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class MockAppleIDClient:
    """Drives one running mock-appleid server. Persona fields and choices may be given in Python's
    snake_case (`first_name`) or the admin API's camelCase (`firstName`)."""

    def __init__(self, server: ServerInfo, *, binary: str, ca_bundle: Optional[str] = None,
                 admin_token: Optional[str] = None):
        self.base_url = server.base_url.rstrip("/")
        self.binary = binary
        self.https_port = server.https_port
        self.ca_bundle = ca_bundle
        self.admin_token = admin_token
        self._server = server

    # Where things are

    @property
    def discovery_url(self) -> str:
        """The OpenID discovery document, whose endpoints are on this server."""
        return f"{self.base_url}/.well-known/openid-configuration"

    @property
    def jwks_url(self) -> str:
        """The signing keys (Apple's /auth/keys)."""
        return f"{self.base_url}/auth/keys"

    @property
    def authorization_endpoint(self) -> str:
        return f"{self.base_url}/auth/authorize"

    @property
    def token_endpoint(self) -> str:
        return f"{self.base_url}/auth/token"

    @property
    def revocation_endpoint(self) -> str:
        return f"{self.base_url}/auth/revoke"

    @property
    def https_base_url(self) -> str:
        """`https://localhost:<port>`, when the server was started with HTTPS."""
        return f"https://localhost:{self._require_https()}"

    # Admin API

    def health(self) -> Dict[str, Any]:
        """`{"status": "ok", "scenario": name}`."""
        return self._admin("GET", "health")

    def reset(self) -> None:
        """Back to the scenario's start: personas, auto-approve, keys, faults, clock; no grants."""
        self._admin("POST", "reset", {})

    def personas(self) -> List[Dict[str, Any]]:
        """Every persona, as the admin API shows them (camelCase fields)."""
        return self._admin("GET", "personas")

    def persona(self, persona_id: str) -> Dict[str, Any]:
        """One persona; MockAppleIDError (404) if there is none."""
        return self._admin("GET", f"personas/{urllib.parse.quote(persona_id, safe='')}")

    def create_persona(self, persona_id: str, **fields: Any) -> Dict[str, Any]:
        """Creates a persona; unnamed fields take the server's defaults. MockAppleIDError (409) if the id is
        taken by a persona whose account is not deleted."""
        return self._admin("POST", "personas", {"id": persona_id, **self._fields(fields)})

    def change_persona(self, persona_id: str, **fields: Any) -> Dict[str, Any]:
        """Changes the named fields (`email=None` removes the email)."""
        return self._admin("PATCH", f"personas/{urllib.parse.quote(persona_id, safe='')}", self._fields(fields))

    def revoke_consent(self, persona_id: str, client: str = DEFAULT_CLIENT_ID) -> Dict[str, Any]:
        """The user stops using Sign in with Apple with `client`'s app group."""
        return self._admin("POST", f"personas/{urllib.parse.quote(persona_id, safe='')}/revoke-consent", {"client": client})

    def delete_account(self, persona_id: str) -> Dict[str, Any]:
        """Every grant of the persona ends; sign-in is refused until it is created again."""
        return self._admin("POST", f"personas/{urllib.parse.quote(persona_id, safe='')}/delete-account", {})

    def clock(self) -> Dict[str, Any]:
        """`{"now", "epochSeconds", "frozen", "scheduled"}`."""
        return self._admin("GET", "clock")

    def now(self) -> int:
        """The mock clock, in epoch seconds."""
        return int(self.clock()["epochSeconds"])

    def set_clock(self, when: Union[int, str], *, frozen: Optional[bool] = None) -> Dict[str, Any]:
        """Sets the clock to epoch seconds or an ISO 8601 time; `frozen` stops or restarts it."""
        body: Dict[str, Any] = {"set": when}
        if frozen is not None:
            body["frozen"] = frozen
        return self._admin("POST", "clock", body)

    def advance_clock(self, seconds: int) -> Dict[str, Any]:
        """Moves the clock forward; work scheduled on it (key rotations, timeline steps) fires."""
        return self._admin("POST", "clock", {"advance": seconds})

    def auto_approve(self, persona: str = "jane", email_choice: Optional[str] = None) -> None:
        """Every authorize request is approved as `persona` at once, with no consent page."""
        body = {"persona": persona}
        if email_choice is not None:
            body["emailChoice"] = email_choice
        self._admin("PUT", "auto-approve", body)

    def stop_auto_approve(self) -> None:
        """The consent page shows again."""
        self._admin("DELETE", "auto-approve")

    def journal(self, after: int = 0) -> List[Dict[str, Any]]:
        """Apple-endpoint requests after sequence number `after`, each with its real `reason`."""
        return self._admin("GET", f"journal?after={int(after)}")["entries"]

    # Relying-party side

    def client_secret(self, client_id: str = DEFAULT_CLIENT_ID, *, key_file: Optional[str] = None,
                      team_id: Optional[str] = None, key_id: Optional[str] = None, lifetime: int = 3600) -> str:
        """An ES256 client secret for `client_id`, issued now on the mock clock. Signed with the scenario's
        key for the client's team (the first by Key ID that is not revoked and has its .p8), or with
        `key_file`; the Team ID defaults to the client's team, and with a `key_file` named as Apple names
        them (`AuthKey_<Key ID>.p8`) the Key ID to the one in its name."""
        if key_file is None:
            team_id, key_id, key_file = self._developer_key(client_id, team_id, key_id)
        else:
            team_id = team_id or self._server.clients.get(client_id)
            named = re.fullmatch(r"AuthKey_(\w+)\.p8", pathlib.Path(key_file).name)
            key_id = key_id or (named.group(1) if named else None)
            if team_id is None or key_id is None:
                raise MockAppleIDError("with key_file, pass team_id and key_id (or name the file AuthKey_<Key ID>.p8 "
                                       "and use a client of the scenario)")
        arguments = [self.binary, "client-secret", "--client-id", client_id, "--lifetime", str(lifetime),
                     "--issued-at", str(self.now()), "--key", key_file, "--team-id", team_id, "--key-id", key_id]
        finished = subprocess.run(arguments, capture_output=True, text=True, timeout=30)
        if finished.returncode != 0:
            raise MockAppleIDError(f"client-secret failed: {finished.stderr.strip()}")
        return finished.stdout.strip()

    def authorize(self, url: str, *, persona: str = "jane", cancel: bool = False, **choices: Optional[str]) -> Dict[str, str]:
        """Opens an authorize URL as a browser would (Apple's host names go to this server), answers the
        consent page as `persona` (choices: `email_choice`, `first_name`, `last_name`), and returns what
        the browser would carry to the redirect URI: form_post fields, or the query or fragment parameters."""
        answer = call("GET", self._here(url))
        action, fields = read_form(answer.text()) if answer.status == 200 else (None, {})
        if action == "authorize/consent":
            fields.update({"persona": persona, "action": "cancel" if cancel else "continue"})
            fields.update({_snake_case_form(name): value for name, value in choices.items() if value is not None})
            answer = call("POST", f"{self.authorization_endpoint}/consent", form=fields)
        return self._delivered(answer, "/auth/authorize")

    def sign_in(self, client_id: str = DEFAULT_CLIENT_ID, redirect_uri: str = DEFAULT_REDIRECT_URI, *,
                persona: str = "jane", scope: str = "name email", response_type: str = "code",
                response_mode: Optional[str] = None, state: str = "mock-appleid-state", nonce: Optional[str] = None,
                exchange: bool = True, client_secret: Optional[str] = None, **choices: Optional[str]) -> SignIn:
        """A whole web sign-in with no browser: authorize, consent as `persona`, and (with `exchange`)
        the code exchange at /auth/token. Raises MockAppleIDError, with the journal's reason, when
        Apple's side refuses."""
        if response_mode is None:
            response_mode = "form_post" if scope.strip() or "id_token" in response_type else "query"
        parameters = {"client_id": client_id, "redirect_uri": redirect_uri, "response_type": response_type,
                      "response_mode": response_mode, "scope": scope, "state": state}
        if nonce is not None:
            parameters["nonce"] = nonce
        url = f"{self.authorization_endpoint}?{urllib.parse.urlencode(parameters, quote_via=urllib.parse.quote)}"
        delivered = self.authorize(url, persona=persona, **choices)
        if "error" in delivered:
            entry = self._newest_journal_entry("/auth/authorize", error=delivered["error"])
            reason = entry["reason"] if entry else None
            raise MockAppleIDError(f"/auth/authorize: {delivered['error']}: {reason}", error=delivered["error"],
                                   status=entry["status"] if entry else None, reason=reason, endpoint="/auth/authorize")
        tokens = None
        if exchange and "code" in delivered:
            tokens = self.exchange_code(delivered["code"], client_id=client_id, redirect_uri=redirect_uri,
                                        client_secret=client_secret)
        return SignIn(delivered=delivered, tokens=tokens)

    def exchange_code(self, code: str, *, client_id: str = DEFAULT_CLIENT_ID,
                      redirect_uri: Optional[str] = DEFAULT_REDIRECT_URI, client_secret: Optional[str] = None,
                      code_verifier: Optional[str] = None) -> Dict[str, Any]:
        """POST /auth/token with grant_type=authorization_code; the token response on success."""
        form = {"client_id": client_id, "client_secret": client_secret or self.client_secret(client_id),
                "grant_type": "authorization_code", "code": code}
        if redirect_uri is not None:
            form["redirect_uri"] = redirect_uri
        if code_verifier is not None:
            form["code_verifier"] = code_verifier
        answer = call("POST", self.token_endpoint, form=form)
        if answer.status != 200:
            raise self._apple_error(answer, "/auth/token")
        return answer.json()

    def audit(self, start: str, signed_in: str, **options: Any) -> AuditReport:
        """The RP audit through this server: it plays Apple's side, with its scenario and world, against the relying
        party configured with it, whose sign-in starts at `start` and whose `signed_in` page answers 2xx only to a
        signed-in session. The options are `mock_appleid.audit`'s (`cases`, `persona`, `native`, `notifications`,
        ...). The audit changes the world as it goes (it revokes consents, rotates the signing key, clears faults), and
        puts back its keys and the app's notification URL when it ends.
        Raises AuditError when the audit could not run."""
        return audit(start, signed_in, server=self.base_url, admin_token=self.admin_token, binary=self.binary, **options)

    @contextlib.contextmanager
    def as_apple(self) -> Iterator["MockAppleIDClient"]:
        """Inside the block, this process reaches the server at https://appleid.apple.com and trusts its
        CA: for relying-party libraries whose Apple URLs cannot be configured. Needs HTTPS."""
        with apple_hosts_at(self._require_https(), self.ca_bundle or ""):
            yield self

    # Internals

    def _admin(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Authorization": f"Bearer {self.admin_token}"} if self.admin_token else None
        answer = call(method, f"{self.base_url}/__admin/{path}", json_body=body, headers=headers)
        if answer.status >= 400:
            try:
                detail = answer.json()
            except ValueError:
                detail = {"error": "http_error", "message": answer.text()[:500]}
            raise MockAppleIDError(f"{method} /__admin/{path}: {answer.status} {detail.get('error')}: {detail.get('message')}",
                                   status=answer.status, error=detail.get("error"), reason=detail.get("message"),
                                   endpoint=f"/__admin/{path.split('?')[0]}")
        return answer.json()

    def _apple_error(self, answer: Answer, endpoint: str) -> MockAppleIDError:
        """An Apple-endpoint refusal, with the reason the journal recorded for it."""
        try:
            error = answer.json().get("error")
        except (ValueError, AttributeError):
            error = None
        entry = self._newest_journal_entry(endpoint, status=answer.status)
        reason = entry["reason"] if entry else None
        error = error or (entry or {}).get("error")
        return MockAppleIDError(f"{endpoint}: {answer.status} {error}: {reason or answer.text()[:500]}",
                                status=answer.status, error=error, reason=reason, endpoint=endpoint)

    def _newest_journal_entry(self, endpoint: str, *, status: Optional[int] = None,
                              error: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """The journal's newest entry, if it is the request just refused (same endpoint and status; for an
        error delivered to the redirect URI, which the journal records as a delivery, the same endpoint);
        None when it is not, so that no older request's reason is passed off as this one's."""
        entries = self.journal()
        newest = entries[-1] if entries else None
        if newest is None or newest["endpoint"] != endpoint:
            return None
        if (status is not None and newest["status"] != status) or (error is not None and newest.get("error") not in (None, error)):
            return None
        return newest

    def _delivered(self, answer: Answer, endpoint: str) -> Dict[str, str]:
        if answer.status in (301, 302, 303, 307, 308):
            location = urllib.parse.urlsplit(answer.headers.get("location", ""))
            return dict(urllib.parse.parse_qsl(location.fragment or location.query, keep_blank_values=True))
        if answer.status == 200:
            action, fields = read_form(answer.text())
            if action is not None and action != "authorize/consent":
                return fields
            message = read_web_message(answer.text())
            if message is not None:
                return message
        raise self._apple_error(answer, endpoint)

    def _here(self, url: str) -> str:
        """`url` with Apple's host names replaced by this server's address."""
        parts = urllib.parse.urlsplit(url)
        if parts.hostname in APPLE_HOSTS or not parts.netloc:
            base = urllib.parse.urlsplit(self.base_url)
            return urllib.parse.urlunsplit((base.scheme, base.netloc, parts.path, parts.query, parts.fragment))
        return url

    def _developer_key(self, client_id: str, team_id: Optional[str], key_id: Optional[str]) -> Tuple[str, str, str]:
        """Team ID, Key ID and .p8 file of the key the server signs `client_id`'s secrets with: `key_id`, or
        the first of the client's team by Key ID that is not revoked and whose .p8 is readable here."""
        team = team_id or self._server.clients.get(client_id)
        if team is None:
            raise MockAppleIDError(f"client {client_id} is not in the scenario; pass team_id, key_id and key_file")
        candidates = [key for key in self._server.developer_keys.get(team, []) if key_id in (None, key[0])]
        for kid, file, built_in in candidates:
            path = self._private_key_file(file, built_in)
            if path is not None:
                return team, kid, path
        places = ", ".join(file or built_in or "inline" for _, file, built_in in candidates) or "none"
        raise MockAppleIDError(f"team {team} has no usable developer key{' ' + key_id if key_id else ''} with a .p8 "
                               f"readable here ({places}); pass key_file")

    @staticmethod
    def _private_key_file(file: Optional[str], built_in: Optional[str]) -> Optional[str]:
        """The .p8 a key came from, if it holds a private key (a scenario may give only the public half, or the
        key inline); a built-in key's copy is in the package."""
        if file is None and built_in is None:
            return None
        path = pathlib.Path(file) if file is not None else BUILT_IN_KEYS / pathlib.Path(built_in).name
        try:
            return os.fspath(path) if "PRIVATE KEY" in path.read_text() else None
        except (OSError, UnicodeDecodeError):
            return None

    def _require_https(self) -> int:
        if self.https_port is None:
            raise MockAppleIDError("this server was started without HTTPS (MockAppleID(https=True) starts it)")
        return self.https_port

    @staticmethod
    def _fields(fields: Dict[str, Any]) -> Dict[str, Any]:
        return {_camel_case(name): value for name, value in fields.items()}


def _snake_case_form(name: str) -> str:
    """Consent form fields are snake_case (`first_name`); accept camelCase too."""
    return "".join("_" + character.lower() if character.isupper() else character for character in name)
