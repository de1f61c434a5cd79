"""Apple's button images from the running server, decoded by Pillow: the size asked for, the colours,
anti-aliased edges, and a label where the label goes, in every locale."""
import io
import json
import pathlib

import pytest
import requests
from PIL import Image

LOCALES = sorted(json.loads((pathlib.Path(__file__).resolve().parents[2] / "Buttons/labels.json").read_text())["locales"])


def image(base_url: str, path: str) -> Image.Image:
    response = requests.get(f"{base_url}{path}", timeout=30)
    assert response.status_code == 200, path
    assert response.headers["Content-Type"] == "image/png"
    decoded = Image.open(io.BytesIO(response.content))
    decoded.load()
    assert decoded.format == "PNG" and decoded.mode == "RGBA"
    return decoded


def dark_columns(picture: Image.Image, top: int, bottom: int) -> set[int]:
    """The columns with a dark, opaque pixel between rows `top` and `bottom`."""
    pixels = picture.load()
    return {x for x in range(picture.width) for y in range(top, bottom)
            if pixels[x, y][3] == 255 and pixels[x, y][0] < 100}


def test_a_white_bordered_button_has_its_size_a_border_and_a_dark_label_across_the_middle(base_url):
    picture = image(base_url, "/appleid/button?width=240&height=48&scale=2&color=white&border=true&border_radius=10")
    assert picture.size == (480, 96)
    pixels = picture.load()
    assert pixels[0, 0][3] < 128, "a rounded corner is transparent"
    assert pixels[240, 1][:3] == (0, 0, 0), "the border runs along the top"
    assert pixels[1, 48][:3] == (0, 0, 0), "and down the left side"
    assert pixels[20, 48] == (255, 255, 255, 255), "the fill is white"
    columns = dark_columns(picture, 30, 66)
    middle = range(120, 360)
    assert sum(1 for x in middle if x in columns) > len(middle) * 0.5, "the label's box is full of dark pixels"
    assert not columns & set(range(8, 40)) and not columns & set(range(440, 472)), "and the margins have none"
    levels = {pixels[x, 48][0] for x in range(480)}
    assert any(0 < level < 255 for level in levels), "edges are anti-aliased"


def test_a_black_button_is_black_with_a_white_label(base_url):
    picture = image(base_url, "/appleid/button?width=140&height=30&border_radius=0")
    assert picture.size == (140, 30)
    pixels = picture.load()
    assert pixels[0, 0] == (0, 0, 0, 255), "no rounding at border_radius=0"
    assert {pixels[x, 15][0] for x in range(140)} >= {0, 255}


def test_scale_multiplies_every_size(base_url):
    for scale in (1, 3, 6):
        assert image(base_url, f"/appleid/button?width=375&height=64&scale={scale}").size == (375 * scale, 64 * scale)
        assert image(base_url, f"/appleid/button/logo?size=50&scale={scale}").size == (50 * scale, 50 * scale)
    assert image(base_url, "/appleid/button/left?width=300&height=40&logo-position=10&label-position=60").size == (300, 40)


def test_the_logo_is_centred_in_its_square(base_url):
    picture = image(base_url, "/appleid/button/logo?size=64&scale=2&border_radius=50")
    box = picture.getchannel("R").point(lambda level: 255 if level > 128 else 0).getbbox()
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    assert abs(centre[0] - 64) < 6 and abs(centre[1] - 64) < 6


@pytest.mark.parametrize("kind", ["sign-in", "continue", "sign-up"])
def test_every_locale_draws_its_own_label(base_url, kind):
    drawn = {locale: requests.get(f"{base_url}/appleid/button?width=375&height=64&locale={locale}&type={kind}",
                                  timeout=30).content for locale in LOCALES}
    assert len(drawn) == 37
    # en_GB shares en_US's words; es_MX, fr_CA, zh_HK and pt share theirs with a sibling; the rest differ.
    assert len(set(drawn.values())) >= 30


def test_the_cdn_host_prefix_serves_the_same_image(base_url):
    path = "/appleid/button?type=sign-up&locale=de_DE"
    assert requests.get(f"{base_url}/appleid.cdn-apple.com{path}", timeout=10).content == \
        requests.get(f"{base_url}{path}", timeout=10).content


def test_a_parameter_apple_refuses_answers_404(base_url):
    for path in ("/appleid/button?border-radius=10", "/appleid/button/left?label_position=10", "/appleid/button?scale=7"):
        assert requests.get(f"{base_url}{path}", timeout=10).status_code == 404, path
