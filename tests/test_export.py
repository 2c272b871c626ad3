"""``trail export``: Markdown, HTML, JSON Lines and the Agent Session Format, where they may be written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import asfcheck
import hermesdb as h
import webhome as w
from hermes_trail import open_history
from hermes_trail.cli.app import app
from hermes_trail.export import safe_name
from hermes_trail.export.markdown import prose
from hermes_trail.export.view import plain, session_view

DOC = (Path(__file__).parents[1] / "docs" / "json.md").read_text()
DOCUMENTED = set(re.findall(r"^\| `([a-z_0-9]+)` \|", DOC, flags=re.MULTILINE))


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return w.write_home(tmp_path_factory.mktemp("export") / "hermes")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _keys(value: object) -> set[str]:
    """Every key of the contract (a tool's own arguments are the tool's, not trail's)."""
    if isinstance(value, dict):
        return set(value) | {k for key, v in value.items() if key != "arguments" for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


# -- the view every format shares ----------------------------------------------------------------------
def test_plain_drops_terminal_sequences_and_shows_other_controls():
    assert plain(w.ANSI) == "red alert done"
    assert plain("a\x07b\r\nc\x00") == "a\\x07b\nc\\x00"
    # A character set chosen (nF: ``tput sgr0`` ends with "\x1b(B"), as a question's escapes are read.
    assert plain("\x1b[1mbold\x1b(B\x1b[m text") == "bold text"


def test_the_view_pairs_outputs_under_calls_and_keeps_hidden_rows(home):
    with open_history(homes=[home], catalog=False) as history:
        session = history.load(history.find(w.REWIND_ID))
        view = session_view(session, history.family(session))
    assert [t["text"] for t in view["turns"]] == [
        "Pick a number.",
        "Seven.",
        "Double it.",
        "Fourteen.",
        "Triple it instead.",
        "Twenty-one.",
    ]
    assert [t["hidden"] for t in view["turns"]] == [False, False, True, True, False, False]
    assert view["hidden_counts"] == {"rewound": 2}
    with open_history(homes=[home], catalog=False) as history:
        session = history.load(history.find(w.CODING_ID))
        view = session_view(session, history.family(session))
    assert all(t["role"] != "tool" for t in view["turns"]), "a paired output is shown under its call"
    first = view["turns"][1]["calls"][0]
    assert first["command"]["exit_code"] == 1 and first["output"] == "1 failed, 3 passed"
    assert first["duration"] == 10.0 and view["resume"] == f"hermes --resume {w.CODING_ID}"


# -- Markdown ---------------------------------------------------------------------------------------------
def test_markdown_prose_is_inert():
    text = (
        f"see {w.SCRIPT} and {w.MD_IMAGE} and `<code>` kept\n```html\n<b>in a fence</b>\n```\nafter <i>x</i>"
    )
    out = prose(text)
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "![" not in out and "[image: tracker](http://127.0.0.9:9/md.png)" in out
    assert "`<code>`" in out and "<b>in a fence</b>" in out and "&lt;i&gt;x&lt;/i&gt;" in out


def test_markdown_prose_cannot_restructure_the_document():
    """Issue 19, defect 6: no heading from a prompt, no javascript: link, a literal ``&amp;`` kept."""
    out = prose("# Title?\n## sub\nline\n---\nline\n===\n#hashtag stays\n```\n# in a fence\n```")
    assert out.split("\n")[:6] == ["\\# Title?", "\\## sub", "line", "\\---", "line", "\\==="]
    assert "\n#hashtag stays\n" in out and "\n# in a fence\n" in out
    out = prose("[x](javascript:alert(1)) [y]( JavaScript:alert(2)) [ok](https://a.example/) [m](mailto:a@b)")
    assert "\\[x\\](javascript:alert(1))" in out and "\\[y\\]( JavaScript:alert(2))" in out
    assert "[ok](https://a.example/)" in out and "[m](mailto:a@b)" in out
    assert prose("[r]: javascript:alert(1)") == "\\[r]: javascript:alert(1)"
    assert prose("a &amp; b & c") == "a &amp;amp; b &amp; c"


def test_plain_shows_bidi_controls():
    """Issue 19, defect 10: an override cannot reorder what follows it."""
    assert plain("Invoice \u202efdp.exe \u2066x\u2069") == "Invoice \\u202efdp.exe \\u2066x\\u2069"


def test_markdown_export(home):
    code, out, err = run("export", w.HOSTILE_ID, "--home", str(home))
    assert code == 0, err
    assert out.startswith("# Hostile &lt;script&gt;alert(1)&lt;/script&gt; title\n")
    assert "<script>" not in out and "<img" not in out and "![tracker]" not in out
    assert w.SECRET not in out and "[REDACTED:" in out
    assert "$ OPENAI_API_KEY=[REDACTED:" in out and "red alert done" in out and "\x1b" not in out
    assert "<details><summary>reasoning</summary>" in out
    readable = r"^### user · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC · #\d+$"
    assert re.search(readable, out, re.MULTILINE), "readable times"
    code, out, _ = run("export", w.CODING_ID, "--home", str(home))
    assert "```diff\n-a - b\n+a + b\n```" in out
    assert "*exit 1 · failed · 10 s*" in out


# -- HTML ---------------------------------------------------------------------------------------------------
def test_html_export_is_self_contained(home, tmp_path):
    target = tmp_path / "replay.html"
    code, _, err = run("export", w.HOSTILE_ID, "--format", "html", "-o", str(target), "--home", str(home))
    assert code == 0, err and f"to {target}" in err
    page = target.read_text()
    assert re.findall(r"(?:src|href)=\"", page) == [], "nothing loaded from anywhere"
    assert 'http-equiv="Content-Security-Policy"' in page and "default-src 'none'" in page
    data = page.split('<script type="application/json" id="trail-data">')[1].split("</script>")[0]
    assert "<" not in data, "no text in the data can close its script element"
    view = json.loads(data)["view"]
    assert view["turns"][0]["text"].startswith("Render this please: <script>window.__pwned")
    assert w.SECRET not in page


# -- JSON Lines ---------------------------------------------------------------------------------------------
def test_jsonl_export_is_the_model(home):
    code, out, _ = run("export", w.REWIND_ID, w.CODING_ID, "--format", "jsonl", "--home", str(home))
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    kinds = [r["record"] for r in records]
    assert kinds.count("session") == 2 and kinds.count("hidden") == 2
    rewind = [r for r in records if r.get("ref") == f"default:{w.REWIND_ID}"]
    assert [r["turn"]["text"] for r in rewind if r["record"] == "turn"] == [
        "Pick a number.",
        "Seven.",
        "Triple it instead.",
        "Twenty-one.",
    ]
    assert _keys(records) - DOCUMENTED == set()


def test_jsonl_redacts_only_secrets(home):
    _, out, _ = run("export", w.HOSTILE_ID, "--format", "jsonl", "--home", str(home))
    assert w.SECRET not in out and "\\u001b[31m" in out, "control characters stay as recorded"
    _, raw, _ = run("export", w.HOSTILE_ID, "--format", "jsonl", "--no-redact", "--home", str(home))
    assert w.SECRET in raw


# -- many sessions, places ----------------------------------------------------------------------------
def test_export_all_into_a_directory_with_progress_quietly(home, tmp_path):
    out_dir = tmp_path / "out"
    code, out, err = run("export", "--all", "--format", "asf", "-o", str(out_dir), "--home", str(home))
    assert code == 0, err and out == ""
    files = sorted(p.name for p in out_dir.iterdir())
    assert (
        len(files) == 7
        and f"default_{w.CODING_ID}.asf.jsonl" in files
        and f"work_{w.WORK_ID}.asf.jsonl" in files
    )
    for path in out_dir.iterdir():
        asfcheck.read(path.read_text())
    md = str(tmp_path / "md")
    code, _, err = run(
        "export", "--all", "--since", "2026-11-09", "--format", "md", "-o", md, "--home", str(home)
    )
    assert code == 0 and len(list((tmp_path / "md").iterdir())) == 2


def test_html_links_to_sessions_exported_beside_it(home, tmp_path):
    code, _, err = run(
        "export", w.PARENT_ID, w.CHILD_ID, "-f", "html", "-o", str(tmp_path), "--home", str(home)
    )
    assert code == 0, err
    page = (tmp_path / f"default_{w.PARENT_ID}.html").read_text()
    links = json.loads(page.split('id="trail-data">')[1].split("</script>")[0])["links"]
    assert links == {
        f"default:{w.PARENT_ID}": f"default_{w.PARENT_ID}.html",
        f"default:{w.CHILD_ID}": f"default_{w.CHILD_ID}.html",
    }


def test_many_sessions_of_a_one_file_format_need_a_directory(home):
    code, _, err = run("export", w.PARENT_ID, w.CHILD_ID, "--format", "html", "--home", str(home))
    assert code == 1 and "need a directory" in err


def test_names_from_hostile_ids_stay_in_the_directory(tmp_path):
    home = tmp_path / "hermes"
    hostile_ids = ["../../escape", "/etc/passwd", "..", "a\\b", "c:d"]
    h.write_home(home, [h.chat(sid, ("hi", "hello"), start=h.T0 + i) for i, sid in enumerate(hostile_ids)])
    out_dir = tmp_path / "exports" / "here"
    code, _, err = run("export", "--all", "-o", str(out_dir), "--home", str(home))
    assert code == 0, err
    written = sorted(p.name for p in out_dir.iterdir())
    assert len(written) == len(hostile_ids)
    assert all("/" not in n and "\\" not in n and not n.startswith(".") for n in written)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exports", "hermes"], "nothing outside -o"
    with open_history(homes=[home]) as history:
        names = {safe_name(s, "md") for s in history.sessions}
    assert names == set(written)


def test_a_symlink_at_the_target_name_is_not_followed(home, tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    (out_dir / f"default_{w.CODING_ID}.md").symlink_to(outside)
    code, _, err = run("export", w.CODING_ID, w.DENIED_ID, "-o", str(out_dir), "--home", str(home))
    assert code == 1 and "symbolic link" in err
    assert outside.read_text() == "keep me"


def test_never_into_a_hermes_home(home):
    code, _, err = run("export", w.CODING_ID, "-o", str(home / "profiles" / "x.md"), "--home", str(home))
    assert code == 1 and "Hermes home" in err
    assert not (home / "profiles" / "x.md").exists()


def test_bad_requests(home):
    assert run("export", "--home", str(home))[0] == 1
    assert run("export", w.CODING_ID, "--all", "--home", str(home))[0] == 1
    assert run("export", w.CODING_ID, "--format", "pdf", "--home", str(home))[0] == 1
    code, _, err = run("export", "nope", "--home", str(home))
    assert code == 1 and "no session 'nope'" in err
    code, _, err = run("export", w.CODING_ID, "--since", "1d", "--home", str(home))
    assert code == 1 and "go with --all" in err


def test_an_output_ending_in_a_line_break_ends_where_its_text_does(tmp_path):
    """Hermes' ``read_file`` returns a file's lines with the file's last line break: ``trail show`` printed
    an empty line after them, and the Markdown export an empty last line in their block."""
    sid = "20261107_100000_f11e5e"
    t = h.T0 + 9 * 86_400
    read = {"content": "1|def half(x):\n2|    return x / 2\n", "total_lines": 2, "truncated": False}
    messages = [
        h.user("What does half do?", timestamp=t),
        h.assistant("", h.call("call_r1", "read_file", path="/home/dev/project/half.py"), timestamp=t + 2),
        h.tool("call_r1", "read_file", read, timestamp=t + 3),
        h.assistant("It halves its argument.", timestamp=t + 5),
    ]
    home = h.write_home(tmp_path / "hermes", [h.SessionSpec(sid, messages, started_at=t, ended_at=t + 9)])
    code, out, err = run("show", sid, "--home", str(home))
    assert code == 0, err
    lines = out.splitlines()
    last = next(i for i, line in enumerate(lines) if "2|    return x / 2" in line)
    assert lines[last + 1] == "" and lines[last + 2].startswith("assistant"), lines[last : last + 3]
    code, out, err = run("export", sid, "--home", str(home))
    assert code == 0, err
    assert "2|    return x / 2\n```" in out, out
