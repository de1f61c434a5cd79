"""The smallest host for social-core's AppleIdAuth: settings, a session and the request's data, as
a Django or Flask integration would hand them over. The backend itself is used unmodified."""
from social_core.storage import BaseStorage, NonceMixin
from social_core.strategy import BaseStrategy

from appleid import KEY_ID, PRIVATE_KEY, REDIRECT_URI, TEAM_ID, WEB_CLIENT


class SignedInUser:
    """What the pipeline's last step makes of the sign-in."""

    def __init__(self, uid, details):
        self.uid = uid
        self.details = details
        self.social_user = None
        self.is_new = False


def signed_in(backend, uid, details, *args, **kwargs):
    """Last pipeline step: the signed-in user (a real site would look up or create its own)."""
    return {"user": SignedInUser(uid, details)}


class MemoryNonces(NonceMixin):
    """The one-time state values social-core issues and claims back, kept in memory."""
    issued: set = set()

    @classmethod
    def use(cls, server_url, timestamp, salt):
        if (server_url, timestamp, salt) in cls.issued:
            return False
        cls.issued.add((server_url, timestamp, salt))
        return True

    @classmethod
    def consume(cls, server_url, timestamp, salt):
        if (server_url, timestamp, salt) not in cls.issued:
            return False
        cls.issued.remove((server_url, timestamp, salt))
        return True


class MemoryStorage(BaseStorage):
    nonce = MemoryNonces


class RelyingPartyStrategy(BaseStrategy):
    """Settings for the app registered in the built-in scenario; an in-memory session."""

    def __init__(self):
        super().__init__(storage=MemoryStorage)
        self.settings = {
            "SOCIAL_AUTH_APPLE_ID_CLIENT": WEB_CLIENT,
            "SOCIAL_AUTH_APPLE_ID_TEAM": TEAM_ID,
            "SOCIAL_AUTH_APPLE_ID_KEY": KEY_ID,
            "SOCIAL_AUTH_APPLE_ID_SECRET": PRIVATE_KEY,
            "SOCIAL_AUTH_APPLE_ID_SCOPE": ["name", "email"],
            "SOCIAL_AUTH_PIPELINE": [
                "social_core.pipeline.social_auth.social_details",
                "social_core.pipeline.social_auth.social_uid",
                "social_core_rp.signed_in",
            ],
        }
        self.session = {}
        self.data = {}

    def get_setting(self, name):
        return self.settings[name]

    def request_data(self, merge=True):
        return dict(self.data)

    def request_host(self):
        return "localhost:3000"

    def session_get(self, name, default=None):
        return self.session.get(name, default)

    def session_set(self, name, value):
        self.session[name] = value

    def session_pop(self, name):
        return self.session.pop(name, None)

    def build_absolute_uri(self, path=None):
        return REDIRECT_URI

    def redirect(self, url):
        return url

    def html(self, content):
        return content
