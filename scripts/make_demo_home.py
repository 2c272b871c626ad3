"""Write the demo Hermes home shipped with hermes-trail, through Hermes' own ``SessionDB``.

    .venv/bin/python scripts/make_demo_home.py [--out DIR]

``trail`` reads this home when a user has none, so it should look like a few days of real use: a coding
session with terminal, read_file and patch calls, a titled chat, a cron run with an empty cwd, a rewound
session, a Discord gateway session, and a session in the profile ``work``. Content and times are fixed,
so running it again gives the same rows. Needs ``hermes-agent`` (the ``test`` extra).

Writes ``DIR/state.db`` and ``DIR/profiles/work/state.db`` (default: the package's
``src/hermes_trail/demo/hermes_home``), checkpointed, with no ``-wal`` or ``-shm`` left beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "src" / "hermes_trail" / "demo" / "hermes_home"
sys.path.insert(0, str(ROOT / "tests"))  # share the tests' helper for Hermes-shaped tool calls

from hermesdb import call  # noqa: E402

MODEL = "claude-sonnet-4-20250514"
DAY = 86400.0
# 2026-11-24 00:00 UTC: the demo's first day.
D0 = 1795478400.0


class Writer:
    """Appends one session's rows with timestamps that advance by the given steps."""

    def __init__(self, db: Any, session_id: str, start: float) -> None:
        self.db, self.id, self.t = db, session_id, start
        self.start = start

    def msg(self, step: float, role: str, content: str = "", **kw: Any) -> int:
        self.t += step
        return self.db.append_message(self.id, role, content, timestamp=self.t, **kw)

    def user(self, text: str, step: float = 20) -> int:
        return self.msg(step, "user", text)

    def reply(self, text: str, step: float = 6, **kw: Any) -> int:
        return self.msg(step, "assistant", text, finish_reason="stop", **kw)

    def tool(self, text: str, name: str, arguments: dict[str, Any], result: Any, step: float = 4) -> None:
        call_id = f"call_{self.id[-6:]}{int(self.t) % 100000:05d}"
        self.msg(
            step, "assistant", text, tool_calls=[call(call_id, name, **arguments)], finish_reason="tool_calls"
        )
        content = result if isinstance(result, str) else json.dumps(result)
        self.msg(2, "tool", content, tool_call_id=call_id, tool_name=name)

    def finish(self, reason: str | None, *, tokens: tuple[int, int] = (0, 0)) -> None:
        if tokens != (0, 0):
            # Priced as Hermes' agent loop prices a call: its own price list, Anthropic route (offline).
            from agent.usage_pricing import CanonicalUsage, estimate_usage_cost

            priced = estimate_usage_cost(
                MODEL, CanonicalUsage(input_tokens=tokens[0], output_tokens=tokens[1]), provider="anthropic"
            )
            self.db.update_token_counts(
                self.id,
                input_tokens=tokens[0],
                output_tokens=tokens[1],
                model=MODEL,
                api_call_count=3,
                estimated_cost_usd=None if priced.amount_usd is None else float(priced.amount_usd),
                cost_status=priced.status,
                cost_source=priced.source,
                billing_provider="anthropic",
            )
        if reason:
            self.db.end_session(self.id, reason)
        ended = self.t + 30 if reason else None

        # SessionDB stamps started_at, ended_at and the per-model usage times with time.time(), and has no
        # method to set them: fixed here by SQL so the demo is the same on every run.
        def fix(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE sessions SET started_at = ?, ended_at = ? WHERE id = ?", (self.start, ended, self.id)
            )
            conn.execute(
                "UPDATE session_model_usage SET first_seen = ?, last_seen = ? WHERE session_id = ?",
                (self.start, self.t, self.id),
            )

        self.db._execute_write(fix)


def coding_session(db: Any) -> None:
    sid, cwd = "20261124_091502_a1b2c3", "/home/ada/projects/weather-cli"
    db.create_session(sid, "cli", model=MODEL, cwd=cwd)
    w = Writer(db, sid, D0 + 9 * 3600 + 15 * 60 + 2)
    w.user("The forecast test fails since yesterday. Can you find out why and fix it?", step=0)
    w.tool(
        "Let me run the test suite first.",
        "terminal",
        {"command": "python -m pytest -q tests/test_forecast.py"},
        {
            "output": "F.\nFAILED tests/test_forecast.py::test_fahrenheit - assert 50.0 == 10.0\n"
            "1 failed, 1 passed in 0.04s",
            "exit_code": 1,
            "error": None,
        },
    )
    w.tool(
        "",
        "read_file",
        {"path": f"{cwd}/weather/units.py"},
        {
            "content": "1|def to_fahrenheit(celsius):\n2|    return celsius * 9 / 5 + 32\n3|\n"
            "4|def to_celsius(fahrenheit):\n5|    return fahrenheit * 5 / 9 - 32\n",
            "total_lines": 5,
            "file_size": 134,
            "truncated": False,
            "is_binary": False,
            "is_image": False,
        },
    )
    w.tool(
        "`to_celsius` subtracts 32 after scaling; it has to subtract first.",
        "patch",
        {
            "mode": "replace",
            "path": f"{cwd}/weather/units.py",
            "old_string": "return fahrenheit * 5 / 9 - 32",
            "new_string": "return (fahrenheit - 32) * 5 / 9",
        },
        {
            "success": True,
            "diff": f"--- a/{cwd}/weather/units.py\n+++ b/{cwd}/weather/units.py\n@@ -4,2 +4,2 @@\n"
            " def to_celsius(fahrenheit):\n-    return fahrenheit * 5 / 9 - 32\n"
            "+    return (fahrenheit - 32) * 5 / 9\n",
            "files_modified": [f"{cwd}/weather/units.py"],
            "lint": {"status": "ok", "output": ""},
        },
    )
    w.tool(
        "",
        "terminal",
        {"command": "python -m pytest -q"},
        {"output": "......\n6 passed in 0.06s", "exit_code": 0, "error": None},
    )
    w.reply(
        "Fixed: `to_celsius` in weather/units.py subtracted 32 after scaling instead of before. "
        "All 6 tests pass now."
    )
    w.user("Thanks! Commit it please.", step=90)
    w.tool(
        "",
        "terminal",
        {"command": "git commit -am 'Fix Fahrenheit to Celsius conversion'"},
        {
            "output": "[main 4f2c9e1] Fix Fahrenheit to Celsius conversion\n 1 file changed, 1 insertion(+), "
            "1 deletion(-)",
            "exit_code": 0,
            "error": None,
        },
    )
    w.reply("Committed as 4f2c9e1.")
    db.set_session_title(sid, "Fix the forecast unit test")
    w.finish("cli_close", tokens=(18420, 1630))


def titled_chat(db: Any) -> None:
    sid = "20261124_201133_5d9e0f"
    db.create_session(sid, "cli", model=MODEL, cwd="/home/ada")
    w = Writer(db, sid, D0 + 20 * 3600 + 11 * 60 + 33)
    w.user("What's a good hydration for a first sourdough loaf?", step=0)
    w.reply(
        "Start around 70% hydration (700 g water per 1 kg flour). It is forgiving to shape; "
        "once that feels easy, move up to 75-78% for a more open crumb."
    )
    w.user("And how much starter?", step=45)
    w.reply("About 20% of the flour weight: 200 g of active starter for 1 kg of flour.")
    db.set_session_title(sid, "Sourdough hydration")
    w.finish("cli_close", tokens=(2210, 190))


def cron_run(db: Any) -> None:
    # Cron sessions run with an empty cwd: a real session class, not missing data.
    sid = "cron_3f1a9c2e_20261125_070000"
    db.create_session(sid, "cron", model=MODEL, cwd="")
    w = Writer(db, sid, D0 + DAY + 7 * 3600)
    w.user("[cron job 'morning-digest'] Summarize open pull requests.", step=0)
    w.tool(
        "",
        "terminal",
        {"command": "gh pr list --state open --limit 5"},
        {
            "output": "12\tAdd hourly forecast\tfeature/hourly\n15\tBump requests to 2.32\tdeps/requests",
            "exit_code": 0,
            "error": None,
        },
    )
    w.reply("Two open pull requests: #12 adds hourly forecasts, #15 bumps requests to 2.32.")
    w.finish("cron_complete", tokens=(3050, 120))


def rewound_session(db: Any) -> None:
    sid = "20261126_143012_8c7d6e"
    db.create_session(sid, "cli", model=MODEL, cwd="/home/ada/projects/weather-cli")
    w = Writer(db, sid, D0 + 2 * DAY + 14 * 3600 + 30 * 60 + 12)
    w.user("Write a haiku about rain.", step=0)
    w.reply("Soft rain on the roof\nthe gutters hum a low tune\nstreets hold the grey sky")
    first_try = w.user("Now one about snow, but make it rhyme.", step=30)
    w.reply("Snow falls on the ground,\nwithout a single sound.")
    # /rewind: the second prompt and its answer stay in the store as inactive rows.
    db.rewind_to_message(sid, first_try)
    w.user("Now one about snow.", step=40)
    w.reply("White hush on the hill\nfootprints fill before the dawn\nthe old fence stands still")
    w.finish("cli_close", tokens=(1630, 140))


def discord_session(db: Any) -> None:
    sid = "20261127_183344_e1f2a3b4"
    db.create_session(sid, "discord", model=MODEL, user_id="412345678901234567")
    origin = {
        "platform": "discord",
        "chat_id": "1300000000000000001",
        "chat_name": "weather-cli / #dev",
        "chat_type": "thread",
        "user_id": "412345678901234567",
        "user_name": "ada",
        "thread_id": "1300000000000000002",
        "guild_id": "1290000000000000000",
    }
    db.record_gateway_session_peer(
        sid,
        source="discord",
        user_id=origin["user_id"],
        session_key="agent:main:discord:thread:1300000000000000001:1300000000000000002",
        chat_id=origin["chat_id"],
        chat_type="thread",
        thread_id=origin["thread_id"],
        display_name=origin["chat_name"],
        origin_json=json.dumps(origin),
    )
    w = Writer(db, sid, D0 + 3 * DAY + 18 * 3600 + 33 * 60 + 44)
    w.user("is the hourly forecast branch ready for review?", step=0)
    w.reply("Almost: PR #12 passes CI but still needs a changelog entry. I'd review it after that lands.")
    w.finish(None, tokens=(1210, 60))  # gateway sessions stay open until they expire


def work_profile_session(db: Any) -> None:
    sid = "20261125_104507_0f9e8d"
    cwd = "/home/ada/work/billing-service"
    db.create_session(sid, "cli", model=MODEL, cwd=cwd, profile_name="work")
    w = Writer(db, sid, D0 + DAY + 10 * 3600 + 45 * 60 + 7)
    w.user("How many invoices failed to send last night?", step=0)
    w.tool(
        "I'll check the job log.",
        "terminal",
        {"command": "grep -c 'send failed' logs/invoice-job-2026-11-24.log"},
        {"output": "3", "exit_code": 0, "error": None},
    )
    w.reply("Three invoices failed to send in last night's run (logs/invoice-job-2026-11-24.log).")
    db.set_session_title(sid, "Failed invoice sends")
    w.finish("cli_close", tokens=(4100, 210))


def write_store(path: Path, sessions: list[Any]) -> None:
    from hermes_state import SessionDB

    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    db = SessionDB(db_path=path)
    try:
        for write in sessions:
            write(db)
    finally:
        db.close()
    # Hermes' schema (FTS5 shadow tables, indexes) is ~45 pages: at the default 4 KiB that is 180 KiB per
    # store. A 1 KiB page keeps the shipped files small; the rows are untouched and WAL mode is restored.
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA page_size=1024")
        conn.execute("VACUUM")
        conn.execute("PRAGMA journal_mode=WAL")
    finally:
        conn.close()
    left = [p.name for p in path.parent.iterdir() if p.name != path.name and p.name.startswith(path.name)]
    if left:
        raise SystemExit(f"{path}: {', '.join(left)} left beside the store")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="the home to write (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    out: Path = args.out
    # Hermes resolves HERMES_HOME on import and may write beside it: give it a scratch home, never ~/.hermes.
    scratch = tempfile.mkdtemp(prefix="hermes-demo-")
    os.environ["HERMES_HOME"] = scratch
    try:
        (out / "profiles" / "work").mkdir(parents=True, exist_ok=True)
        write_store(
            out / "state.db", [coding_session, titled_chat, cron_run, rewound_session, discord_session]
        )
        write_store(out / "profiles" / "work" / "state.db", [work_profile_session])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    total = sum(p.stat().st_size for p in out.rglob("*.db"))
    print(f"wrote {out} ({total // 1024} KiB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
