"""What `serve --ready-file` writes once every listener is bound: where the server is, and which team each
client of its scenario belongs to and where each developer key's .p8 is (what a client secret needs)."""
import dataclasses
import json
import pathlib
from typing import Dict, List, Optional, Tuple

from .errors import ServerStartError


@dataclasses.dataclass(frozen=True)
class ServerInfo:
    base_url: str
    https_port: Optional[int]
    #: client_id (Services ID or bundle ID) → Team ID
    clients: Dict[str, str]
    #: Team ID → [(Key ID, the .p8 file on this machine or None, the repository file it was built from or None)],
    #: by Key ID, revoked keys left out
    developer_keys: Dict[str, List[Tuple[str, Optional[str], Optional[str]]]]


def read_ready_file(path: pathlib.Path) -> ServerInfo:
    try:
        text = path.read_text()
    except OSError as error:
        raise ServerStartError(f"mock-appleid's ready file {path} cannot be read: {error}") from error
    return parse_ready_file(text, str(path))


def parse_ready_file(text: str, source: str) -> ServerInfo:
    """A ready file's text (`source` names where it came from, for errors)."""
    try:
        ready = json.loads(text)
        base_url = ready["listeners"]["http"]["url"]
    except (ValueError, KeyError, TypeError) as error:
        raise ServerStartError(f"mock-appleid's ready file {source} cannot be read: {error}") from error
    https = ready["listeners"].get("https")
    keys: Dict[str, List[Tuple[str, Optional[str], Optional[str]]]] = {}
    for key in ready.get("developerKeys", []):
        if not key.get("revoked"):
            keys.setdefault(key["team"], []).append((key["kid"], key.get("file"), key.get("builtIn")))
    return ServerInfo(base_url, https["port"] if https else None, dict(ready.get("clients", {})), keys)
