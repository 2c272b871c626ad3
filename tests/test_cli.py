"""``trail list`` and ``trail show`` driven in process, on stores Hermes' ``SessionDB`` wrote."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hermes_trail.cli.app import app

hermes_state = pytest.importorskip("hermes_state")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    """A root store with three sessions and a profile store, written by Hermes."""
    root = tmp_path / "hermes"
    monkeypatch.setenv("HERMES_HOME", str(root))
    (root / "profiles" / "work").mkdir(parents=True)
    db = hermes_state.SessionDB(db_path=root / "state.db")
    db.create_session("20261101_100000_aaaaaa", "cli", model="m1", cwd="/src/alpha")
    db.append_message("20261101_100000_aaaaaa", "user", "alpha question", timestamp=1_800_000_000.0)
    db.append_message("20261101_100000_aaaaaa", "assistant", "alpha answer", timestamp=1_800_000_010.0)
    db.set_session_title("20261101_100000_aaaaaa", "Alpha work")
    db.create_session("20261101_100000_aaaabb", "cron")
    db.append_message("20261101_100000_aaaabb", "user", "cron prompt", timestamp=1_800_000_100.0)
    db.create_session("20261102_090000_bbbbbb", "telegram", model="m2")
    db.append_message("20261102_090000_bbbbbb", "user", "hello", timestamp=1_800_100_000.0)
    db.close()
    work = hermes_state.SessionDB(db_path=root / "profiles" / "work" / "state.db")
    work.create_session("20261103_080000_cccccc", "cli", model="m3")
    work.append_message("20261103_080000_cccccc", "user", "work question", timestamp=1_800_200_000.0)
    work.close()
    return root


def test_list_shows_every_store_newest_activity_first(home):
    code, out, err = run("list", "--json", "--home", str(home))
    assert code == 0, err
    data = json.loads(out)
    ids = [s["id"] for s in data["sessions"]]
    assert ids == [
        "20261103_080000_cccccc",
        "20261102_090000_bbbbbb",
        "20261101_100000_aaaabb",
        "20261101_100000_aaaaaa",
    ]
    work = data["sessions"][0]
    assert work["profile"] == "work" and work["project"] == "profiles/work"
    alpha = data["sessions"][-1]
    assert alpha["project"] == "/src/alpha" and alpha["title"] == "Alpha work"
    assert alpha["message_count"] == 2
    assert alpha["last_activity_at"].startswith("2027-01-15T08:00:10")
    cron = data["sessions"][2]
    assert cron["project"] == "hermes" and cron["source"] == "cron"
    assert data["strays"] == [] and data["demo"] is False


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--profile", "work"], ["20261103_080000_cccccc"]),
        (["--source", "telegram"], ["20261102_090000_bbbbbb"]),
        (["--project", "alpha"], ["20261101_100000_aaaaaa"]),
        (["--project", "/src"], ["20261101_100000_aaaaaa"]),  # a directory under the project counts
        (["--limit", "1"], ["20261103_080000_cccccc"]),
        (["--since", "2027-01-16"], ["20261103_080000_cccccc", "20261102_090000_bbbbbb"]),
    ],
)
def test_list_filters(home, args, expected):
    code, out, _ = run("list", "--json", "--home", str(home), *args)
    assert code == 0
    assert [s["id"] for s in json.loads(out)["sessions"]] == expected


def test_list_table_for_people(home):
    code, out, _ = run("list", "--home", str(home))
    assert code == 0
    assert "Alpha work" in out and "20261103_080000_cccccc" in out


def test_bad_since_is_one_clear_line(home):
    code, _, err = run("list", "--since", "whenever it suits", "--home", str(home))
    assert code == 1 and "--since" in err and "Traceback" not in err
    code, _, err = run("list", "--since", "last tuesday", "--home", str(home))  # a time in words
    assert code == 0, err


def test_a_role_no_turn_can_have_is_one_clear_line_not_no_match(home, tmp_path):
    """``--role foo`` matched nothing, and "No match" took the typo for an empty history: it fails saying
    which roles there are. A role is read in any case; a kind of turn (``reply``, ``command``) is one."""
    index = str(tmp_path / "index.db")
    code, _, err = run("search", "alpha", "--role", "foo", "--home", str(home), "--index", index)
    assert code == 1 and "--role 'foo'" in err and "assistant (or reply)" in err and "Traceback" not in err
    code, out, err = run("search", "alpha", "--role", "Assistant", "--home", str(home), "--index", index)
    assert code == 0 and "alpha answer" in out, err
    code, out, err = run("search", "alpha", "--role", "reply", "--home", str(home), "--index", index)
    assert code == 0 and "alpha answer" in out and "alpha question" not in out, err


def test_show_replays_a_session_by_unambiguous_prefix(home):
    code, out, _ = run("show", "20261101_100000_aaaaa", "--home", str(home))
    assert code == 0
    assert "alpha question" in out and "alpha answer" in out


def test_show_json(home):
    code, out, _ = run("show", "20261101_100000_aaaaaa", "--json", "--home", str(home))
    assert code == 0
    data = json.loads(out)
    assert data["session"]["id"] == "20261101_100000_aaaaaa"
    assert [(t["role"], t["text"]) for t in data["turns"]] == [
        ("user", "alpha question"),
        ("assistant", "alpha answer"),
    ]
    assert data["turns"][0]["uid"].endswith("/20261101_100000_aaaaaa/1")


def test_an_ambiguous_prefix_lists_the_candidates(home):
    code, _, err = run("show", "20261101_100000_aaaa", "--home", str(home))
    assert code == 1
    assert "default:20261101_100000_aaaaaa" in err and "default:20261101_100000_aaaabb" in err


def test_an_unknown_id_says_so(home):
    code, out, err = run("show", "nope", "--home", str(home))
    assert code == 1 and out == "" and "no session 'nope'" in err
    assert "like it" not in err  # nothing is like it


@pytest.mark.parametrize("command", ["show", "resume", "handoff", "export"])
def test_an_id_typed_with_a_slip_names_the_sessions_like_it(home, command):
    """One character of an id typed wrong (its last) finds nothing: every command that takes a session
    names the sessions whose id is like it, to give instead."""
    code, _, err = run(command, "20261101_100000_aaaaac", "--home", str(home))
    assert code == 1 and "no session '20261101_100000_aaaaac'" in err
    assert "sessions like it:\n  default:20261101_100000_aaaaaa" in err
    # Looked for among the ids that share the longest start with it: "…aaaabb" shares one less.
    assert "aaaabb" not in err


def test_control_characters_in_content_never_reach_the_terminal(home, monkeypatch):
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.append_message("20261101_100000_aaaaaa", "user", "red \x1b[31malert\x1b[0m")
    db.close()
    code, out, _ = run("show", "20261101_100000_aaaaaa", "--home", str(home))
    assert code == 0 and "\x1b[31m" not in out and "\\x1b[31malert" in out


def test_no_home_reads_the_bundled_demo(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("HERMES_HOME", raising=False)
    code, out, err = run("list", "--json")
    assert code == 0, err
    assert "demo" in err
    data = json.loads(out)
    assert data["demo"] is True and data["sessions"]


def test_the_demo_is_searched_in_an_index_of_its_own(home, tmp_path, monkeypatch):
    """A shell where no Hermes home is found searches the demo, in its own index beside the default one:
    the default index keeps the real homes' sessions (synced into it, the demo took them out, and the
    next search that found the homes read every one of them again). ``--index`` is taken as given."""
    import sqlite3

    index = tmp_path / "data" / "index.db"
    monkeypatch.setenv("TRAIL_INDEX", str(index))
    code, out, err = run("search", "alpha", "--json")
    assert code == 0, err
    before = sqlite3.connect(index).execute("SELECT count(*) FROM sessions").fetchone()[0]
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))  # another shell: no Hermes home
    monkeypatch.delenv("HERMES_HOME")
    code, out, err = run("search", "forecast", "--json")
    assert code == 0 and "demo home" in err
    assert json.loads(out)["conversations"]
    assert sqlite3.connect(index).execute("SELECT count(*) FROM sessions").fetchone()[0] == before
    demo = index.with_name("demo-index.db")
    stores = [k for (k,) in sqlite3.connect(demo).execute("SELECT key FROM stores")]
    assert stores and all("demo" in key for key in stores), stores
    chosen = tmp_path / "chosen.db"
    code, out, err = run("index", "--index", str(chosen), "--no-vectors", "--json")
    assert code == 0 and json.loads(out)["path"] == str(chosen) and json.loads(out)["sessions"]


def test_a_look_at_another_home_leaves_the_default_index_whole(home, tmp_path, monkeypatch):
    """``--home`` naming another home (a backup, a colleague's export) is indexed in an index of its own:
    the default index keeps this machine's sessions, which it took out before (the next plain search read
    them all again). Naming the homes the default index holds, or any home when it holds none still
    there, uses the default index."""
    import sqlite3

    index = tmp_path / "data" / "index.db"
    monkeypatch.setenv("TRAIL_INDEX", str(index))
    assert run("search", "alpha")[0] == 0
    held = sqlite3.connect(index).execute("SELECT key FROM stores ORDER BY key").fetchall()
    other = tmp_path / "backup"
    other.mkdir()
    db = hermes_state.SessionDB(db_path=other / "state.db")
    db.create_session("20261201_100000_dddddd", "cli")
    db.append_message("20261201_100000_dddddd", "user", "omega question", timestamp=1_800_300_000.0)
    db.close()
    code, out, err = run("search", "omega", "--home", str(other), "--json")
    assert code == 0 and "an index of its own" in err
    found = [c["hits"][0]["session_id"] for c in json.loads(out)["conversations"]]
    assert found == ["20261201_100000_dddddd"]
    assert sqlite3.connect(index).execute("SELECT key FROM stores ORDER BY key").fetchall() == held
    scoped = list((index.parent / "scoped").glob("*.db"))
    assert len(scoped) == 1
    code, out, err = run("search", "omega", "--home", str(other), "--json")  # kept for the next look
    assert code == 0 and "index of its own" not in err
    assert list((index.parent / "scoped").glob("*.db")) == scoped
    code, out, err = run("search", "alpha", "--home", str(home), "--json")  # the homes it holds: itself
    assert code == 0 and "index of its own" not in err and json.loads(out)["conversations"]
    assert list((index.parent / "scoped").glob("*.db")) == scoped
    code, out, err = run("index", "--no-vectors", "--json")  # the default index says what is beside it
    listed = json.loads(out)["others"]
    assert code == 0 and [o["path"] for o in listed] == [str(p) for p in scoped] and listed[0]["bytes"] > 0
    code, out, err = run("index", "--no-vectors")
    assert "beside it" in out and str(scoped[0]) in out
    shutil.rmtree(home)  # what the default index holds is gone: nothing to lose, it is used
    code, out, err = run("search", "omega", "--home", str(other), "--json")
    assert code == 0 and json.loads(out)["conversations"]
    keys = [k for (k,) in sqlite3.connect(index).execute("SELECT key FROM stores")]
    assert keys and all(str(other.resolve()) in k for k in keys), keys


def test_show_folds_reasoning_and_marks_rows_kept_aside(home):
    sid = "20261101_100000_aaaaaa"
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.append_message(sid, "assistant", "visible reply", reasoning="line one of thinking\nline two")
    target = db.append_message(sid, "user", "a prompt taken back")
    db.rewind_to_message(sid, target)
    db.close()
    _, folded, _ = run("show", sid, "--home", str(home))
    assert "▸ reasoning: line one of thinking" in folded and "line two" not in folded
    assert "a prompt taken back" not in folded and "1 rewound" in folded
    _, unfolded, _ = run("show", sid, "--reasoning", "--all", "--home", str(home))
    assert "line two" in unfolded
    assert "a prompt taken back" in unfolded and "[rewound]" in unfolded


def test_list_reports_cost_compactions_and_relation(home):
    parent, child = "20261101_100000_aaaaaa", "20261104_100000_dddddd"
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.update_token_counts(
        parent,
        input_tokens=1200,
        output_tokens=300,
        estimated_cost_usd=0.25,
        cost_status="estimated",
        cost_source="provider_models_api",
    )
    db.end_session(parent, "compression")
    db.create_session(child, "cli", parent_session_id=parent)
    db.append_message(child, "user", "carry on", timestamp=1_800_300_000.0)
    db.close()
    code, out, _ = run("list", "--json", "--home", str(home))
    assert code == 0
    sessions = {s["id"]: s for s in json.loads(out)["sessions"]}
    assert sessions[parent]["cost"]["usd"] == 0.25 and sessions[parent]["cost"]["kind"] == "estimated"
    assert sessions[parent]["tokens"]["input"] == 1200
    assert sessions[child]["relation"] == "continuation"
    assert sessions[child]["chain"] == [parent, child] == sessions[parent]["chain"]
    assert sessions[child]["project"] == "/src/alpha"  # a continuation stays in its parent's project
    cron = sessions["20261101_100000_aaaabb"]
    assert cron["cost"]["usd"] is None and cron["kind"] == "cron"
    wide = CliRunner().invoke(app, ["list", "--home", str(home)], env={"COLUMNS": "220"})
    assert "$0.25" in wide.stdout and "continuation" in wide.stdout


def test_show_lineage_reads_the_chain_as_one_conversation(home):
    parent, child = "20261101_100000_aaaaaa", "20261104_100000_dddddd"
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.end_session(parent, "compression")
    db.create_session(child, "cli", parent_session_id=parent)
    db.append_message(child, "user", "carry on", timestamp=1_800_300_000.0)
    db.close()
    code, out, _ = run("show", child, "--lineage", "--json", "--home", str(home))
    assert code == 0
    chain = json.loads(out)["chain"]
    assert [part["session"]["id"] for part in chain] == [parent, child]
    texts = [t["text"] for part in chain for t in part["turns"]]
    assert texts == ["alpha question", "alpha answer", "carry on"]
    code, text, _ = run("show", child, "--lineage", "--home", str(home))
    assert code == 0 and "part 1 of 2" in text and "alpha answer" in text and "carry on" in text
    _, single, _ = run("show", child, "--home", str(home))
    assert "part 2 of 2" in single and "alpha answer" not in single


LINEAGE_KEYS = ("relation", "relation_marked", "chain", "children", "project", "kind")


def _lineage_of(data: dict) -> tuple:
    return tuple(json.dumps(data[k], sort_keys=True) for k in LINEAGE_KEYS)


def test_show_finds_the_whole_family_without_reading_the_catalog(home):
    """``show`` walks the parent links instead of reading every session; it must agree with ``list``."""
    db = hermes_state.SessionDB(db_path=home / "state.db")
    root, middle = "20261101_100000_aaaaaa", "20261105_000000_mmmmmm"
    tip, helper = "20261106_000000_tttttt", "20261105_120000_hhhhhh"
    db.end_session(root, "compression")
    db.create_session(middle, "cli", parent_session_id=root)
    db.append_message(middle, "user", "middle", timestamp=1_800_400_000.0)
    db.end_session(middle, "compression")
    db.create_session(tip, "cli", parent_session_id=middle)
    db.append_message(tip, "user", "tip", timestamp=1_800_500_000.0)
    db.create_session(helper, "subagent", parent_session_id=middle)
    db.append_message(helper, "user", "sub-task", timestamp=1_800_450_000.0)
    db.close()
    code, out, _ = run("list", "--json", "--home", str(home))
    listed = {s["id"]: s for s in json.loads(out)["sessions"]}
    assert listed[middle]["chain"] == [root, middle, tip]
    assert {c["id"] for c in listed[middle]["children"]} == {tip, helper}
    for sid, session in listed.items():
        code, shown, _ = run("show", sid, "--json", "--home", str(home))
        assert code == 0
        assert _lineage_of(json.loads(shown)["session"]) == _lineage_of(session), sid


@pytest.mark.corpus
@pytest.mark.parametrize("version", ["corpus-v22", "corpus-v31"])
def test_show_and_list_agree_on_every_corpus_session(corpus_dir, version):
    db = corpus_dir / version / "hermes_home" / "state.db"
    code, out, _ = run("list", "--json", "--limit", "0", "--db", str(db))
    assert code == 0
    for session in json.loads(out)["sessions"]:
        code, shown, _ = run("show", session["id"], "--json", "--db", str(db))
        assert code == 0
        detail = json.loads(shown)["session"]
        assert _lineage_of(detail) == _lineage_of(session), session["id"]
        assert detail["compactions"] == session["compactions"], session["id"]
