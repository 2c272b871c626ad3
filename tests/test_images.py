"""Image parts are kept, not dropped to ``[image]`` (issue 16, 6): the model has each image's media type,
size and URL; ``show --json`` and the JSON Lines export say what each is; the HTML export and the web
replay carry the image itself; the terminal and Markdown name it.

The session is written by Hermes' ``SessionDB``, whose ``append_message`` stores a part list as
``\\x00json:`` + JSON, as the gateway and the CLI's image paste do.
"""

from __future__ import annotations

import base64
import json

import pytest
from typer.testing import CliRunner

import hermesdb as h
from hermes_trail import open_history
from hermes_trail.cli.app import app

SID = "20261102_090000_1a9e00"
PIXEL = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()
URL = f"data:image/png;base64,{PIXEL}"
SIZE = len(base64.b64decode(PIXEL))
LABEL = f"[image: image/png, {SIZE} bytes]"


@pytest.fixture
def home(tmp_path):
    parts = [
        {"type": "text", "text": "What colour is this pixel?"},
        {"type": "image_url", "image_url": {"url": URL}},
    ]
    messages = [h.user(parts, timestamp=h.T0), h.assistant("Transparent.", timestamp=h.T0 + 3)]
    return h.write_home(tmp_path / "hermes", [h.SessionSpec(SID, messages, started_at=h.T0)])


def run(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_the_model_keeps_the_image(home):
    with open_history(homes=[home], catalog=False) as history:
        user = history.load(history.find(SID)).turns[0]
    [image] = user.images
    assert (image.media_type, image.size, image.url) == ("image/png", SIZE, URL)
    assert user.text == f"What colour is this pixel?\n{LABEL}"


def test_show_names_it(home):
    code, out, err = run("show", SID, "--json", "--home", home)
    assert code == 0, err
    turn = json.loads(out)["turns"][0]
    assert turn["images"] == [{"media_type": "image/png", "bytes": SIZE, "label": LABEL, "url": None}]
    assert LABEL in turn["text"]
    code, out, _ = run("show", SID, "--home", home)
    assert code == 0 and LABEL in out and "[image]\n" not in out


def test_exports(home):
    code, html, err = run("export", SID, "--format", "html", "--home", home)
    assert code == 0, err
    assert PIXEL in html  # the image itself, shown by the replay's script (img-src data: is allowed)
    code, md, _ = run("export", SID, "--format", "md", "--home", home)
    assert code == 0 and LABEL in md and PIXEL not in md
    code, lines, _ = run("export", SID, "--format", "jsonl", "--home", home)
    turns = [r["turn"] for r in map(json.loads, lines.splitlines()) if r["record"] == "turn"]
    assert turns[0]["images"][0]["bytes"] == SIZE


def test_the_web_replay_has_it(home):
    from hermes_trail.web.app import WebApp

    web = WebApp(homes=(home,))
    try:
        turn = web.session({"ref": SID})["turns"][0]
    finally:
        web.close()
    assert turn["images"] == [{"label": LABEL, "media_type": "image/png", "bytes": SIZE, "src": URL}]


def test_a_link_is_named_not_loaded():
    from hermes_trail.export.view import _image
    from hermes_trail.hermes.decode.content import CONTENT_PREFIX, decode_content

    parts = [
        {"type": "input_image", "image_url": "https://example.com/cat.png"},
        {"type": "image_url", "image_url": {"url": "data:text/html;base64,PHNjcmlwdD4="}},
    ]
    content = decode_content(CONTENT_PREFIX + json.dumps(parts), "user")
    assert content.text == "[image: https://example.com/cat.png]\n[image: text/html, 8 bytes]"
    assert [_image(i)["src"] for i in content.images] == [None, None]


def test_a_large_image_is_named_by_a_size_people_read():
    """The placeholder says "2.4 MB", not "2457.6 KB", as every size trail prints; one byte is a byte."""
    from hermes_trail.model import Image

    assert Image("image/jpeg", 2_516_582, "data:image/jpeg;base64,...").label == "[image: image/jpeg, 2.4 MB]"
    assert Image("image/png", 12_600, "data:image/png;base64,...").label == "[image: image/png, 12 KB]"
    assert Image("image/gif", 1, "data:image/gif;base64,R").label == "[image: image/gif, 1 byte]"
    assert Image(None, None, "https://example.com/a.png").label == "[image: https://example.com/a.png]"
