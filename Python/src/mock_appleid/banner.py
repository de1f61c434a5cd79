"""What `serve` prints once it listens: where it is, the clients and the developer keys of its scenario."""
import dataclasses
import re
from typing import Dict, List, Optional, Tuple

from .errors import ServerStartError


@dataclasses.dataclass(frozen=True)
class Banner:
    base_url: str
    https_port: Optional[int]
    #: client_id (Services ID or bundle ID) → Team ID
    clients: Dict[str, str]
    #: Team ID → [(Key ID, where the .p8 is, as the banner words it)], by Key ID, revoked keys left out
    developer_keys: Dict[str, List[Tuple[str, str]]]


def parse_banner(text: str) -> Banner:
    listening = re.search(r"mock-appleid listening on (http://\S+)", text)
    if listening is None:
        raise ServerStartError(f"mock-appleid printed no plain-HTTP address to reach it:\n{text}")
    base_url = listening.group(1)
    https = re.search(r"^  HTTPS:\s.*?https://localhost(?::(\d+))?[,\s]", text, re.M)
    clients: Dict[str, str] = {}
    team = None
    for line in text.splitlines():
        group = re.match(r"  team (\S+), app group ", line)
        if group:
            team = group.group(1)
        client = re.match(r"    client_id (\S+) \((?:native|web)", line)
        if client and team:
            clients[client.group(1)] = team
    keys: Dict[str, List[Tuple[str, str]]] = {}
    for key in re.finditer(r"^  team (\S+) key (\S+): (.+)$", text, re.M):
        if not key.group(3).endswith(" (revoked)"):
            keys.setdefault(key.group(1), []).append((key.group(2), key.group(3)))
    https_port = int(https.group(1) or 443) if https else None
    return Banner(base_url, https_port, clients, keys)
