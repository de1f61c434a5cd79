"""Reads the pages a sign-in passes through: the consent page's form, and the form_post or web_message
page that hands the answer to the relying party."""
import html.parser
import json
from typing import Dict, Optional, Tuple


class _Form(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.action: Optional[str] = None
        self.hidden: Dict[str, str] = {}
        self.message: Optional[str] = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = attributes.get("action") or ""
        if tag == "input" and attributes.get("type") == "hidden" and attributes.get("name"):
            self.hidden[attributes["name"]] = attributes.get("value") or ""
        if attributes.get("id") == "result" and "data-message" in attributes:
            self.message = attributes["data-message"]


def read_form(page: str) -> Tuple[Optional[str], Dict[str, str]]:
    """The first form's action and its hidden fields."""
    form = _Form()
    form.feed(page)
    return form.action, form.hidden


def read_web_message(page: str) -> Optional[Dict[str, str]]:
    """What a web_message page posts to its opener, as the fields a form_post would carry (`user` as JSON
    text), or None when the page is not one."""
    form = _Form()
    form.feed(page)
    if form.message is None:
        return None
    message = json.loads(form.message)
    if "error" in message:
        return {name: message[name] for name in ("error", "state") if name in message}
    fields = {name: value for name, value in message.get("authorization", {}).items() if value is not None}
    if "user" in message:
        fields["user"] = json.dumps(message["user"])
    return fields
