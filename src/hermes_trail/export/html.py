"""A session's replay as one self-contained HTML file: the view as JSON, the replay script and its styles
inline, nothing fetched, so it opens offline from disk.

Its Content-Security-Policy allows only the script and style it carries (by hash) and images from
``data:`` URLs, so nothing in a transcript can run or load from elsewhere even if it escaped the
renderer. The JSON is written with ``<`` as ``\\u003c``, so no text in it can close its script element.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import cache
from html import escape
from importlib import resources
from typing import Any


@cache
def asset(name: str) -> str:
    """A file of ``export/assets`` (the replay's script and styles, shared with the web viewer)."""
    return (resources.files("hermes_trail.export") / "assets" / name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def script_json(value: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<`` to close it, no line separators."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render(view: dict[str, Any], links: dict[str, str] | None = None) -> str:
    """The HTML file. ``links`` maps a linked session's ref to its exported file, beside this one."""
    script, style = asset("replay.js"), asset("replay.css")
    policy = (
        "default-src 'none'; "
        f"script-src '{_digest(script)}'; style-src '{_digest(style)}'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    title = view["session"]["title"] or view["session"]["id"]
    data = script_json({"view": view, "links": links or {}})
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(policy, quote=False)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="hermes-trail">\n<title>{escape(title)} · hermes-trail</title>\n'
        f'<style>{style}</style>\n</head>\n<body>\n<div id="app"><p>Loading the replay…</p></div>\n'
        f'<script type="application/json" id="trail-data">{data}</script>\n'
        f"<script>{script}</script>\n</body>\n</html>\n"
    )
