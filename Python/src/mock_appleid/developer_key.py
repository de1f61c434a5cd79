"""The built-in scenario's developer key, with which a relying party signs its client secrets."""
import dataclasses
import functools

from .binary import PACKAGE


@dataclasses.dataclass(frozen=True)
class DeveloperKey:
    """A Sign in with Apple private key as Apple's developer portal hands it out: an ES256 key in a
    .p8 file, its Key ID, and the Team ID that owns it."""
    team_id: str
    key_id: str
    pem: str


BUILT_IN_KEYS = PACKAGE / "keys"


@functools.lru_cache(maxsize=None)
def built_in_developer_key() -> DeveloperKey:
    """Team MOCKTEAM01's key MOCKKEY001, which the built-in scenario registers for com.example.web."""
    pem = (BUILT_IN_KEYS / "AuthKey_MOCKKEY001.p8").read_text()
    return DeveloperKey(team_id="MOCKTEAM01", key_id="MOCKKEY001", pem=pem)
