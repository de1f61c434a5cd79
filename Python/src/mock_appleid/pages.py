"""Reads the two pages a sign-in passes through: the consent page's form and the form_post page that
hands the answer to the relying party."""
import html.parser
from typing import Dict, Optional, Tuple


class _Form(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.action: Optional[str] = None
        self.hidden: Dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = attributes.get("action") or ""
        if tag == "input" and attributes.get("type") == "hidden" and attributes.get("name"):
            self.hidden[attributes["name"]] = attributes.get("value") or ""


def read_form(page: str) -> Tuple[Optional[str], Dict[str, str]]:
    """The first form's action and its hidden fields."""
    form = _Form()
    form.feed(page)
    return form.action, form.hidden
