"""Issue 9, point 6: a secret of every kind the redactor knows, planted through Hermes' own ``SessionDB`` in
prompts, replies, tool arguments and tool outputs, never comes out of a surface that promises redaction:
``trail search --json``, ``trail recall``, ``fix``/``blame``/``how --json``, ``trail handoff``, ``trail
export`` in every format, the MCP tools' answers and the web app's pages and APIs.

``trail show`` (and ``--json``) and ``trail timeline`` are the owner's faithful view of their own store and
promise no redaction (docs/secrets.md); the last test pins that down so a change to it is a decision.

A leak is looked for as the whole value and as every 16-character window of it, in the raw output and in
every string of it once decoded (JSON, HTML entities), so a secret cut by a page budget, wrapped by a
terminal or escaped by a serializer is still caught.
"""

from __future__ import annotations

import html
import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import hermesdb as h
from hermes_trail.cli.app import app
from hermes_trail.redact import KINDS
from test_redact import POSITIVES, Sample

pytest.importorskip("hermes_state")

WORD = "zephyr"  # in every planted text, so one query finds them all
PATH = "/home/dev/vault/settings.env"


def _one_per_kind() -> list[Sample]:
    """The first corpus sample of each kind (``unreadable`` is the redactor's own failure, not a kind
    anyone writes)."""
    chosen: dict[str, Sample] = {}
    for sample in POSITIVES:
        for secret in sample.secrets:
            chosen.setdefault(secret.kind, sample)
    assert set(chosen) == set(KINDS) - {"unreadable"}
    unique: dict[str, Sample] = {s.where: s for s in chosen.values()}
    return list(unique.values())


SAMPLES = _one_per_kind()
SECRETS = sorted({s.text[x.start : x.end] for s in SAMPLES for x in s.secrets}, key=len)
KIND_COUNT = len({x.kind for s in SAMPLES for x in s.secrets})


def session_id(i: int) -> str:
    return f"20261120_{i:02d}0000_5ec{i:03x}"


def spec(i: int, sample: Sample) -> h.SessionSpec:
    """One session holding ``sample`` in a prompt, a reply, a command, a written file, and tool output."""
    text, t = sample.text, h.T0 + 20 * 86400 + 3600 * i
    msgs = [
        h.user(f"{WORD} prompt {i}: {text}"),
        h.assistant(
            f"{WORD} reply {i}: {text}", h.call(f"call_a{i}", "terminal", command=f"echo {WORD} {text}")
        ),
        h.tool(
            f"call_a{i}",
            "terminal",
            {"output": f"Error: {WORD} refused\n{text}", "exit_code": 1, "error": None},
        ),
        h.assistant("", h.call(f"call_w{i}", "write_file", path=PATH, content=f"# {WORD}\n{text}\n")),
        h.tool(f"call_w{i}", "write_file", {"bytes_written": len(text), "note": f"{WORD} {text}"}),
        *h.terminal_exchange(f"call_b{i}", f"{WORD} deploy --again {text}", f"{WORD} ok {text}", 0),
        h.assistant(f"{WORD} done {i}: {text}"),
    ]
    for n, msg in enumerate(msgs):
        msg["timestamp"] = t + 10 * n
    title = f"{WORD} {i} {text}" if len(text) <= 80 and "\n" not in text else None
    return h.SessionSpec(
        session_id(i), msgs, cwd="/home/dev/vault", title=title, started_at=t, ended_at=t + 200
    )


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return h.write_home(
        tmp_path_factory.mktemp("secrets") / "home", [spec(i, s) for i, s in enumerate(SAMPLES)]
    )


@pytest.fixture
def home(template, isolated_env, monkeypatch) -> Path:
    monkeypatch.setenv("TRAIL_INDEX", str(isolated_env / "index.db"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    return template


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings(v)


def decoded(text: str) -> list[str]:
    """``text`` and what it says once its escapes are undone: each JSON document or JSON line, HTML."""
    out = [text, html.unescape(text), urllib.parse.unquote(text)]
    for candidate in [text, *text.splitlines()]:
        try:
            out.extend(strings(json.loads(candidate)))
        except ValueError:
            continue
    return out


def leaks(text: str) -> list[str]:
    """The planted secrets (or 16-character pieces of them) found in ``text``, decoded every way."""
    found = []
    # Every decoded string at once, each apart from the next by a character no piece holds: a piece is
    # in this text exactly when it is in one of them.
    hay = SEPARATOR.join(decoded(text))
    for secret in SECRETS:
        pieces = {secret} | {secret[k : k + 16] for k in range(0, max(len(secret) - 15, 1), 4)}
        pieces = {p.strip() for p in pieces if len(p.strip()) >= 8 or p == secret}
        assert not any(SEPARATOR in p for p in pieces)
        if any(p in hay for p in pieces):
            found.append(secret)
    return found


SEPARATOR = "\x00"


def markers(text: str) -> int:
    return text.count("[REDACTED:")


def run(*args: str, stdin: str | None = None) -> str:
    result = CliRunner().invoke(app, list(args), input=stdin, catch_exceptions=False)
    assert result.exit_code in (0, 3), (args, result.exit_code, result.stderr)
    return result.stdout


def check(surface: str, text: str, least: int = 1) -> None:
    """No planted secret in ``text``, and at least ``least`` redaction markers (the secrets did reach it)."""
    assert not leaks(text), f"{surface} leaks {leaks(text)[:3]}"
    found = markers(text)
    assert found >= least, f"{surface}: {found} markers, the planted secrets never reached it"


def test_the_corpus_plants_every_kind():
    assert len(KINDS) - 1 == KIND_COUNT and len(SECRETS) >= KIND_COUNT


def test_the_store_holds_them_unredacted(template):
    """Hermes stores the secrets as written: otherwise the rest proves nothing."""
    raw = (template / "state.db").read_bytes().decode("latin-1")
    wal = template / "state.db-wal"
    raw += wal.read_bytes().decode("latin-1") if wal.exists() else ""
    assert all(s.split("\n")[0] in raw or json.dumps(s)[1:-1].split("\\n")[0] in raw for s in SECRETS)


def test_cli_search_recall_fix_blame_how(home):
    check("search --json", run("search", WORD, "--json", "-n", "50", "--home", str(home)), 30)
    check("search", run("search", WORD, "-n", "50", "--home", str(home)), 30)
    for role in ("user", "assistant", "tool"):
        check(
            f"search --role {role}",
            run("search", WORD, "--role", role, "--json", "-n", "50", "--home", str(home)),
            20,
        )
    check("recall", run("recall", WORD, "--budget", "100000", "--home", str(home)), 5)
    check("fix --json", run("fix", f"Error: {WORD} refused", "--json", "-n", "20", "--home", str(home)), 5)
    check("blame --json", run("blame", PATH, "--json", "--home", str(home)), 20)
    check("blame", run("blame", PATH, "--home", str(home)), 20)
    check("how --json", run("how", f"{WORD} deploy", "--json", "-n", "50", "--home", str(home)), 10)


def test_handoff(home):
    for i in range(len(SAMPLES)):
        check("handoff", run("handoff", session_id(i), "--home", str(home)))


@pytest.mark.parametrize("fmt", ["md", "html", "jsonl", "asf"])
def test_export(home, tmp_path, fmt):
    out = tmp_path / "out"
    run("export", "--all", "--format", fmt, "-o", str(out), "--home", str(home))
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert len(files) == len(SAMPLES)
    for file in files:
        check(f"export {fmt}", file.read_text(encoding="utf-8"), 4)
    check(f"export {fmt} (stdout)", run("export", session_id(0), "--format", fmt, "--home", str(home)), 4)


def test_mcp_answers(home, isolated_env):
    from hermes_trail.mcp.tools import answer
    from hermes_trail.service import Trail

    trail = Trail(index=isolated_env / "mcp-index.db", homes=(home,))
    calls: list[tuple[str, dict[str, Any], int]] = [
        ("recall", {"query": WORD, "budget": 30000}, 5),
        ("search", {"query": WORD, "limit": 50}, 30),
        ("fix", {"error": f"Error: {WORD} refused", "limit": 20}, 5),
        ("blame", {"path": PATH, "limit": 200}, 20),
        ("how", {"what": f"{WORD} deploy", "limit": 50}, 10),
        ("sessions", {"limit": 50}, 5),
    ]
    calls += [("show", {"session_id": session_id(i), "limit": 40}, 4) for i in range(len(SAMPLES))]
    for name, args, least in calls:
        result = answer(trail, name, args)
        assert not result.error, (name, result.text[:300])
        check(f"mcp {name}", result.text + json.dumps(result.structured), least)


def test_web_app(home, isolated_env):
    import http.client

    from hermes_trail.web.app import WebApp
    from hermes_trail.web.server import start

    app_ = WebApp(homes=(home,), index=isolated_env / "web-index.db")
    srv = start(app_, "127.0.0.1", 0)

    def get(path: str) -> str:
        conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=60)
        conn.request("GET", path)
        response = conn.getresponse()
        body = response.read().decode("utf-8")
        conn.close()
        assert response.status == 200, (path, response.status, body[:200])
        return body

    try:
        for page in ("/", f"/session?ref={session_id(0)}", "/api/sessions?limit=100", "/api/stats?by=day"):
            check(f"web {page.split('?')[0]}", get(page), 5 if "sessions" in page else 0)
        check("web /api/search", get(f"/api/search?q={WORD}&limit=50"), 30)
        for i in range(len(SAMPLES)):
            check("web /api/session", get(f"/api/session?ref=default:{session_id(i)}"), 4)
    finally:
        srv.shutdown()
        app_.close()


def test_show_and_timeline_are_the_owners_faithful_view(home, tmp_path):
    """Not a promise of redaction: ``show`` and ``timeline`` print the store as recorded, secrets too."""
    assert leaks(run("show", session_id(0), "--home", str(home)))
    assert leaks(run("show", session_id(0), "--json", "--home", str(home)))
    out = tmp_path / "t.jsonl"
    run("timeline", "-o", str(out), "--home", str(home))
    assert leaks(out.read_text(encoding="utf-8"))
