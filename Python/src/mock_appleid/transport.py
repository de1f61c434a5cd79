"""The few HTTP calls the client makes, with the standard library only. Redirects are never followed:
a sign-in's redirect carries its answer."""
import dataclasses
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Mapping, Optional

from .errors import MockAppleIDError

TIMEOUT_SECONDS = 30


@dataclasses.dataclass(frozen=True)
class Answer:
    """An HTTP answer: status, headers (names lowercased) and body."""
    status: int
    headers: Mapping[str, str]
    body: bytes

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.body)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *arguments, **keywords):
        return None


# No proxy: the server is on loopback, whatever HTTP_PROXY says.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects)


def call(method: str, url: str, *, json_body: Any = None, form: Optional[Mapping[str, str]] = None,
         headers: Optional[Mapping[str, str]] = None) -> Answer:
    """Sends one request and returns the answer, whatever its status."""
    data = None
    all_headers = dict(headers or {})
    if json_body is not None:
        data = json.dumps(json_body).encode()
        all_headers["Content-Type"] = "application/json"
    elif form is not None:
        data = urllib.parse.urlencode(form).encode()
        all_headers["Content-Type"] = "application/x-www-form-urlencoded"
    request = urllib.request.Request(url, data=data, method=method, headers=all_headers)
    try:
        with _opener.open(request, timeout=TIMEOUT_SECONDS) as response:
            return Answer(response.status, {k.lower(): v for k, v in response.headers.items()}, response.read())
    except urllib.error.HTTPError as error:
        with error:
            return Answer(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read())
    except (urllib.error.URLError, OSError) as error:
        raise MockAppleIDError(f"{method} {url}: no answer ({error}); has the server stopped?") from error
