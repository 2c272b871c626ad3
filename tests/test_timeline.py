"""``trail timeline`` over a home with every side store (``tests/forensic.py``): the row rules of
docs/timeline.md, pairing, collapsing copies, bad-line rows, order, filters and outputs."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest
from typer.testing import CliRunner

import forensic as fx
import hermesdb as h
from hermes_trail.cli.app import app
from hermes_trail.timeline import FIELDS

DOUBLEAGENT_FIELDS = (
    "timestamp_utc",
    "host",
    "user",
    "agent",
    "session_id",
    "project_path",
    "git_branch",
    "turn_type",
    "model",
    "tool_name",
    "tool_use_id",
    "text",
    "source_file",
    "source_line",
)


def run(forensic, *args: str) -> tuple[int, str, str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(forensic.user_home))
        mp.setenv("TRAIL_HERMES_HOME", str(forensic.home))
        result = CliRunner().invoke(app, ["timeline", *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def rows(forensic) -> list[dict]:
    code, out, err = run(forensic)
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def texts(rows, **where) -> list[str]:
    return [r["text"] for r in rows if all(r[k] == v for k, v in where.items())]


def source(rows, session_id) -> set[str]:
    return {
        r["source_file"].rsplit("/", 3)[-1]
        if "snapshots" in r["source_file"]
        else r["source_file"].rsplit("/", 1)[-1]
        for r in rows
        if r["session_id"] == session_id
    }


def test_fields_are_doubleagents_fourteen_then_profile(rows):
    assert (*DOUBLEAGENT_FIELDS, "profile") == FIELDS
    assert all(tuple(r) == FIELDS for r in rows)
    assert {r["agent"] for r in rows} == {"hermes"} and len({r["host"] for r in rows}) == 1
    assert {r["turn_type"] for r in rows} <= {"user", "assistant", "tool_use", "tool_result", "system"}


def test_sorted_by_time_then_source_and_line_undated_last(rows):
    keys = [
        (
            r["timestamp_utc"] is None,
            r["timestamp_utc"] or "",
            r["source_file"],
            -1 if r["source_line"] is None else r["source_line"],
        )
        for r in rows
    ]
    assert keys == sorted(keys)
    dated = [r["timestamp_utc"] is not None for r in rows]
    assert dated == sorted(dated, reverse=True) and not dated[-1]


def test_message_rows(rows):
    chat = [
        r
        for r in rows
        if r["session_id"] == fx.CHAT_ID
        and r["source_file"].endswith("state.db")
        and "snapshots" not in r["source_file"]
    ]
    assert [(r["turn_type"], r["text"], r["source_line"]) for r in chat][:4] == [
        ("system", "session start: source=cli title=About WAL end_reason=cli_close", None),
        ("system", "model: anthropic/claude-sonnet-4", None),
        ("user", "What is WAL?", 1),
        ("assistant", "A write-ahead log.", 2),
    ]
    first = chat[2]
    assert (
        first["timestamp_utc"] == "2026-11-02T09:00:00.000000Z"
        and first["project_path"] == "/home/dev/project"
    )
    assert first["model"] == "anthropic/claude-sonnet-4" and first["profile"] == "default"
    # Rewound after the snapshots: kept from the live store, marked, and from the snapshot as it was.
    assert "[rewound] And the shm file?" in texts(rows, session_id=fx.CHAT_ID)
    assert texts(rows, session_id=fx.CHAT_ID).count("And the shm file?") == 1
    perm = [r for r in rows if r["session_id"] == fx.PERM_ID]
    uses = [(r["tool_name"], r["tool_use_id"], r["text"]) for r in perm if r["turn_type"] == "tool_use"]
    assert uses == [("terminal", "call_b1", "rm -rf build/"), ("terminal", "call_a1", "git push --force")]
    results = [(r["tool_use_id"], r["source_line"]) for r in perm if r["turn_type"] == "tool_result"]
    assert [u for u, _ in results] == ["call_b1", "call_a1"]
    assert "thinking" not in {r["turn_type"] for r in perm}


def test_permission_rows(rows):
    perm = [r for r in rows if r["session_id"] == fx.PERM_ID and r["text"].startswith("permission")]
    assert [(r["text"], r["tool_use_id"]) for r in perm] == [
        (
            "permission decision: blocked Command denied: recursive delete. user_summary=rm -rf build/",
            "call_b1",
        ),
        (
            "permission decision: approved (Command required approval (force push) and was approved by the "
            "user.)",
            "call_a1",
        ),
    ]
    yolo = texts(rows, session_id=fx.PERM_ID + "-yolo")
    assert "permission setting: yolo_mode=true (from state.db sessions.model_config, started_at)" in yolo
    settings = [
        (r["profile"], r["text"])
        for r in rows
        if r["text"].startswith("permission setting: ") and not r["session_id"]
    ]
    assert sorted(settings) == sorted(
        [
            (
                "default",
                "permission setting: command_allowlist=recursive delete (from config.yaml, file mtime)",
            ),
            ("default", "permission setting: command_allowlist=podman * (from config.yaml, file mtime)"),
            (
                "default",
                "permission setting: pairing.discord.88213 user_name=ops_kim (from "
                "platforms/pairing/discord-approved.json, approved_at)",
            ),
            ("work", "permission setting: command_allowlist=npm test (from config.yaml, file mtime)"),
        ]
    )


def test_session_rows(rows):
    assert (
        "session relayed: discord chat 55102 type channel thread - user 88213 name ops_kim display "
        "build-alerts (from state.db sessions, started_at)"
    ) in texts(rows, session_id=fx.DISCORD_ID)
    assert (
        "scratch directory: /home/dev/app/.worktrees/fix-login (git worktree the agent created in "
        "/home/dev/app, branch hermes/fix-login)"
    ) in texts(rows, session_id=fx.WORKTREE_ID)
    scratch = texts(rows, session_id=fx.SCRATCH_ID)
    assert any(t.startswith("scratch directory: ") and "cache/scratch" in t for t in scratch)
    start = texts(rows, session_id=fx.IMPORTED_ID)[0]
    assert start.endswith(
        " | imported from claude-code /home/dev/.claude/projects/app/c0ffee.jsonl session "
        "c0ffee-1 | archived=1"
    )


def test_model_rows(rows, forensic):
    cron = texts(rows, session_id=forensic.cron_sessions["keep01"])
    assert "model: loopback-model provider=custom" in cron
    assert texts(rows, session_id=fx.CHAT_ID)[1] == "model: anthropic/claude-sonnet-4"


def test_deletion_and_system_rows(rows):
    deleted = [
        (r["session_id"], r["text"], r["timestamp_utc"])
        for r in rows
        if r["text"].startswith("session deleted")
    ]
    assert deleted == [
        (
            fx.FENCE_ONLY_ID,
            f"session deleted: {fx.FENCE_ONLY_ID} (from state.db state_meta "
            "gateway.retired_session.v1, retired_at)",
            "2026-11-02T07:59:59.750000Z",
        ),
        (
            fx.CODING_ID,
            f"session deleted: {fx.CODING_ID} (from state.db state_meta gateway.retired_session.v1, "
            "retired_at)",
            "2026-11-02T11:00:00.500000Z",
        ),
        (
            fx.PRUNED_ID,
            f"session deleted: {fx.PRUNED_ID} sweep (from state.db state_meta "
            "gateway.retired_session.v1, retired_at)",
            "2026-11-02T11:01:40.000000Z",
        ),
    ]
    assert (
        "relay peer: discord agent:main:discord:channel:55102 generation 3 (from state.db "
        "conversation_generations)"
    ) in texts(rows, timestamp_utc=None)
    assert "bot mode room Launch (room1) seq 1 message.user actor user:u1 (Ada): ship it?" in texts(rows)
    assert 'bot mode room Launch (room1) seq 2 room.renamed actor system:gw: {"name":"Launch"}' in texts(rows)
    assert (
        "debug report uploaded: https://paste.rs/Xq3vT (from pastes/pending.json, expire_at minus 6 hours)"
        in (texts(rows))
    )


def test_snapshot_copies_collapse(rows, forensic):
    a, b = forensic.snapshots
    # The chat's first exchange is in the live store and both snapshots: it is one row, from the live store.
    assert texts(rows, session_id=fx.CHAT_ID).count("What is WAL?") == 1
    # The pruned session is in both snapshots only: one copy of each row, from the first snapshot.
    pruned = [r for r in rows if r["session_id"] == fx.PRUNED_ID and r["turn_type"] != "system"]
    assert [r["text"] for r in pruned] == ["Old question", "Old answer"]
    assert {r["source_file"].split("/")[-2] for r in pruned} == {a}
    assert [r["text"] for r in rows if r["text"].startswith("state snapshot")] == [
        f"state snapshot {a}: older copy of state.db",
        f"state snapshot {b}: older copy of state.db",
    ]
    coding = [r for r in rows if r["session_id"] == fx.CODING_ID and r["turn_type"] == "tool_use"]
    assert [r["text"] for r in coding] == [
        "pytest -q",
        "/home/dev/project/app.py",
        "/home/dev/project/app.py",
        "pytest -q",
    ]


def test_divert_rows(rows):
    chat = [r for r in rows if r["session_id"] == fx.CHAT_ID and r["source_file"].endswith(".jsonl")]
    assert [(r["text"], r["source_line"], r["project_path"]) for r in chat] == [
        ("Diverted after the database was replaced.", 2, "")
    ]  # the line that repeats a live row pairs with it
    only = [(r["turn_type"], r["text"]) for r in rows if r["session_id"] == fx.DIVERT_ONLY_ID]
    assert only[:2] == [("user", "rotate the keys"), ("tool_use", "vault rotate")]
    assert [t for _, t in only[2:]] == [
        "parser: unparseable line (not JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 "
        "(char 1)): {not json",
        "parser: unparseable line (not an object): [1,2]",
    ]


def test_prompt_history_rows(rows, forensic):
    history = [(r["turn_type"], r["text"]) for r in rows if r["source_file"].endswith(".hermes_history")]
    # Typed prompts that a session row holds pair with it (the TUI's within 2 s, the classic CLI's within any
    # zone offset); the others, and every slash command, stay.
    assert sorted(history) == sorted(
        [
            ("system", "slash command: /model anthropic/claude-opus-4.1"),
            ("user", "a TUI prompt never stored"),
            ("system", "slash command: /yolo"),
            ("user", "a classic prompt never stored"),
        ]
    )
    assert all(r["session_id"] == "" for r in rows if r["source_file"].endswith(".hermes_history"))
    assert "deploy the docs" in texts(rows, session_id=fx.TUI_ID)


def test_cron_rows(rows, forensic):
    def of(job):
        return [(r["turn_type"], r["text"][:40]) for r in rows if f"/cron/output/{job}/" in r["source_file"]]

    keep = [r["text"] for r in rows if "/cron/output/keep01/" in r["source_file"]]
    # Its prompt and response are the kept session's rows: only the run's own row stays.
    assert keep == ["cron run: job keep01 (from cron/output, file name time, host-local)"]
    gone = of("gone01")
    assert [t for t, _ in gone] == ["system", "user", "assistant"] and gone[2][
        1
    ] == "Two deploys, one rollback."
    failed = of("fail01")
    assert sorted(t for t, _ in failed) == ["system", "system", "user"]
    assert any(text.startswith("cron run output: ## Error") for _, text in failed)
    assert of("script01") == [("system", "cron run output: # Cron Job: disk\n\n**Job")]


def test_response_store_and_trajectory_rows(rows, forensic):
    store = [
        (r["turn_type"], r["text"], r["session_id"], r["timestamp_utc"] is None)
        for r in rows
        if r["source_file"].endswith("response_store.db")
    ]
    assert store == [
        (
            "system",
            "api server response resp_gone status=completed model=hermes-agent conversation=- (from "
            "response_store.db responses, created_at)",
            "api-deleted-0002",
            False,
        ),
        (
            "system",
            "api server response resp_live status=completed model=hermes-agent conversation=ops (from "
            "response_store.db responses, created_at)",
            fx.API_ID,
            False,
        ),
        ("user", "A question nobody kept", "api-deleted-0002", True),
        ("assistant", "An answer nobody kept", "api-deleted-0002", True),
    ]
    trajectory = [
        (r["turn_type"], r["text"][:30], r["project_path"])
        for r in rows
        if r["source_file"].endswith("trajectory_samples.jsonl")
    ]
    project = str(forensic.project)
    assert trajectory == [
        ("system", "trajectory: model=loopback-mod", project),
        ("system", "trajectory system prompt: You ", project),
    ]


def test_desktop_rows_never_show_a_token_or_header(rows, forensic):
    desktop = [(r["text"], r["profile"]) for r in rows if r["source_file"].endswith("connections.json")]
    assert sorted(desktop) == sorted(
        [
            (
                "remote backend: remote Homelab https://hermes.home.test (from connections.json, file mtime)",
                "",
            ),
            (
                "remote backend: ssh Build box ci@build.test:2222 (from connections.json, file mtime) "
                "profile=work",
                "",
            ),
            ("remote backend quarantined by the app: invalid url (from connections.json, file mtime)", ""),
            ("parser: unparseable record 4 (not an object)", ""),
        ]
    )
    everything = json.dumps(rows)
    assert fx.TOKEN not in everything and fx.HEADER not in everything and fx.SECRET not in everything


def test_bad_line_rows(rows):
    parser = [
        (r["session_id"], r["text"], r["source_line"]) for r in rows if r["text"].startswith("parser: ")
    ]
    assert all(r["timestamp_utc"] is None for r in rows if r["text"].startswith("parser: "))
    bad = next(p for p in parser if p[0] == fx.BADCALLS_ID)
    assert bad[1] == (
        'parser: unparseable record 26 (tool_calls is not valid JSON): [{"id": "call_x1", "function": '
        '{"name": "terminal"'
    )
    assert any("state_meta.value: not JSON" in t for _, t, _ in parser)
    assert (
        "",
        "parser: config.yaml command_allowlist is not a flat list (- {pattern: rm}: not a plain scalar)",
        5,
    ) in parser


def test_filters(forensic):
    code, out, _ = run(forensic, "--since", "2026-11-02T09:00:30", "--until", "2026-11-02T10:00:15")
    picked = [json.loads(line) for line in out.splitlines()]
    assert (
        code == 0
        and picked
        and all("2026-11-02T09:00:30" <= r["timestamp_utc"] < "2026-11-02T10:00:15" for r in picked)
    )
    code, out, _ = run(forensic, "-m", "WAL", "--match", "^rotate", "-i")
    assert sorted({json.loads(line)["text"] for line in out.splitlines()}) == [
        "What is WAL?",
        "rotate the keys",
        "session start: source=cli title=About WAL end_reason=cli_close",
    ]
    code, out, _ = run(forensic, "--profile", "work")
    assert {json.loads(line)["profile"] for line in out.splitlines()} == {"work"}
    code, out, _ = run(forensic, "--include-thinking", "-m", "Both handled")
    assert [json.loads(line)["turn_type"] for line in out.splitlines()] == ["thinking"]
    code, _, err = run(forensic, "-m", "(")
    assert code == 1 and "not a regular expression" in err
    code, _, err = run(forensic, "--format", "xml")
    assert code == 1


def test_an_empty_timeline_says_why_and_swapped_bounds_fail(forensic):
    """A window or pattern no row is in wrote nothing and said nothing, so a person could not tell it from
    a command that failed: the stream stays empty (a program reads none) and stderr says what was asked.
    A ``--since`` after the ``--until`` holds no time at all: the command fails saying so."""
    code, out, err = run(forensic, "--since", "2099-01-01", "-m", "WAL")
    assert (code, out) == (0, "")
    assert "no row Hermes left behind since '2099-01-01' matching --match: nothing written" in err
    code, out, err = run(forensic, "--profile", "wrok")  # a typo, not a profile that left nothing behind
    assert (code, out) == (1, "") and "no profile 'wrok' in the homes read (profiles: default, work)" in err
    code, out, err = run(forensic, "--since", "2026-11-03", "--until", "2026-11-02")
    assert code == 1 and out == "" and "--since '2026-11-03' (2026-11-03 00:00) is after --until" in err
    assert "no time is in both" in err


def test_csv_and_output_directory(forensic, rows, tmp_path):
    code, out, _ = run(forensic, "--format", "csv")
    table = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and tuple(table[0]) == FIELDS and len(table) == len(rows)
    assert table[-1]["timestamp_utc"] == "" and table[0]["source_line"] in ("", "15")
    assert [r["text"] for r in table] == [r["text"] for r in rows]
    target = tmp_path / "case"
    code, out, _ = run(forensic, "-o", f"{target}/")
    assert code == 0 and out == ""
    written = (target / "timeline.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in written] == rows
    sessions = [json.loads(line) for line in (target / "sessions.jsonl").read_text().splitlines()]
    recovered = {s["id"]: s["recovered"]["kind"] for s in sessions if s["recovered"]}
    assert recovered == {fx.PRUNED_ID: "snapshot", fx.CODING_ID: "snapshot", fx.DIVERT_ONLY_ID: "divert"}
    assert fx.CHAT_ID in {s["id"] for s in sessions}
    code, _, err = run(forensic, "-o", str(forensic.home / "out.jsonl"))
    assert code == 1 and "inside the Hermes home" in err and not (forensic.home / "out.jsonl").exists()


def test_output_file_in_a_folder_not_made_yet(forensic, rows, tmp_path):
    """Issue 9: ``-o new/dir/t.jsonl`` made a traceback (FileNotFoundError); its folder is made now."""
    code, out, err = run(forensic, "-o", str(tmp_path / "new" / "dir" / "t.jsonl"))
    assert code == 0 and out == "" and "Traceback" not in err
    assert len((tmp_path / "new" / "dir" / "t.jsonl").read_text().splitlines()) == len(rows)
    (tmp_path / "file").write_text("")
    code, _, err = run(forensic, "-o", str(tmp_path / "file" / "t.jsonl"))
    assert code == 1 and "cannot write" in err


def test_a_home_without_side_files(hermes_home, monkeypatch):
    monkeypatch.setenv("TRAIL_HERMES_HOME", str(hermes_home))
    result = CliRunner().invoke(app, ["timeline"], catch_exceptions=False)
    found = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.exit_code == 0 and {r["session_id"] for r in found} == {h.CHAT_ID, h.CODING_ID, h.WORK_ID}


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["corpus-v22", "corpus-v31"])
def test_corpus_homes(corpus_dir, name, monkeypatch):
    """Hermes' own stores: every stored row is on the timeline (compaction copies and ``session_meta`` rows,
    read once or not at all, excepted), with no bad-line row, and the model switch as Hermes recorded it."""
    home = corpus_dir / name / "hermes_home"
    if not home.is_dir():
        pytest.skip(f"no {name}")
    monkeypatch.setenv("TRAIL_HERMES_HOME", str(home))
    result = CliRunner().invoke(app, ["timeline"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    found = [json.loads(line) for line in result.stdout.splitlines()]
    assert not [r for r in found if r["text"].startswith("parser:")]
    conn = sqlite3.connect(f"{(home / 'state.db').as_uri()}?immutable=1", uri=True)
    stored = conn.execute("SELECT id, session_id, role, content, active FROM messages").fetchall()
    conn.close()
    lines = {(r["session_id"], r["source_line"]) for r in found if r["source_line"] is not None}
    archived = {(sid, content) for _, sid, _, content, active in stored if active == 0}
    for row_id, sid, role, content, active in stored:
        if (sid, row_id) in lines or role == "session_meta":
            continue
        # Only a compaction copy (an active row repeating an archived one: read once) may be left out.
        assert active == 1 and (sid, content) in archived, (sid, row_id)
    switch = [r for r in found if r["text"].startswith("model:") and r["source_line"] is not None]
    assert switch and all(r["turn_type"] == "system" for r in switch)
