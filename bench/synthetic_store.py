"""Deterministic synthetic Hermes store for benchmarking ``trail``.

Usage::

    python bench/synthetic_store.py OUT_DIR [--sessions 10000] [--messages 1000000]
                                            [--big-session 5000] [--seed 7]

Creates ``OUT_DIR/hermes_home/state.db`` and ``OUT_DIR/meta.json``.

- The schema is made by Hermes' own writer (``hermes_state.SessionDB``), so tables, columns, indexes,
  FTS tables and triggers are exactly what hermes-agent creates.
- The rows are then bulk-loaded with ``executemany`` INSERTs into ``sessions`` and ``messages`` (column
  names checked against ``PRAGMA table_info``), in one transaction.
- **FTS triggers**: Hermes keeps ``messages_fts`` and ``messages_fts_trigram`` in step with ``messages``
  through ``AFTER INSERT/UPDATE/DELETE`` triggers; feeding a trigram index 1M rows would take many
  minutes. The generator drops those triggers for the load and re-creates them afterwards from the SQL
  saved out of ``sqlite_master``, so the schema ends as Hermes made it, but **the FTS tables stay empty**
  (Hermes' full-text search finds nothing in this store; ``trail`` never reads the FTS tables).
- For the load only, the journal is switched off (``journal_mode=OFF``, ``synchronous=OFF``); the file is
  put back into WAL mode, as Hermes leaves it, and checkpointed with ``wal_checkpoint(TRUNCATE)`` so no
  ``-wal`` file remains.
- Deterministic: everything comes from ``random.Random(seed)`` and a fixed epoch (no clock, no uuid), so
  the same arguments give the same rows, byte for byte.

The store: sessions of sources cli (most), cron, telegram, discord and subagent; ids as Hermes makes them
(``YYYYmmdd_HHMMSS_<6 hex>``, ``cron_<job>_YYYYmmdd_HHMMSS`` for cron runs); one cli session (its id is
printed and written to ``meta.json``) holds exactly ``--big-session`` messages, the others share the rest
unevenly. Messages are turns of a user prompt, assistant rows with ``tool_calls`` and their ``tool``
results, and a final assistant reply; a few sessions were rewound (``active = 0`` rows).
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EPOCH = 1_704_067_200.0  # 2024-01-01 UTC, the first session's start
FLUSH_ROWS = 50_000
MIN_MESSAGES = 2

SOURCES = (("cli", 0.76), ("cron", 0.08), ("telegram", 0.07), ("discord", 0.03), ("subagent", 0.06))
PROJECTS = (
    "/home/dev/src/hermes-trail",
    "/home/dev/src/webshop",
    "/home/dev/src/infra",
    "/home/dev/src/ml-pipeline",
    "/home/dev/notes",
)
BRANCHES = ("main", "main", "main", "feature/search", "fix/flaky-tests", "refactor/store", "dev")
MODELS = (
    ("anthropic/claude-sonnet-4", "openrouter", "https://openrouter.ai/api/v1"),
    ("anthropic/claude-opus-4.1", "openrouter", "https://openrouter.ai/api/v1"),
    ("gpt-5", "openai", "https://api.openai.com/v1"),
    ("gemini-2.5-pro", "google", "https://generativelanguage.googleapis.com/v1beta"),
    ("qwen/qwen3-coder", "openrouter", "https://openrouter.ai/api/v1"),
)
END_REASONS = (("cli_close", 0.6), ("new_session", 0.2), ("session_reset", 0.1), ("compression", 0.1))
TITLE_VERBS = ("Fix", "Add", "Refactor", "Debug", "Document", "Speed up", "Review", "Explain", "Port", "Test")

TITLE_OBJECTS = (
    "flaky parser test",
    "login redirect loop",
    "CSV export",
    "session search",
    "Dockerfile caching",
    "memory leak in worker",
    "CI pipeline",
    "pricing page",
    "nginx config",
    "migration script",
    "rate limiter",
    "TUI colors",
    "backup cron job",
    "type hints in store",
    "release notes",
)
WORDS = (
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "is",
    "it",
    "that",
    "for",
    "on",
    "with",
    "this",
    "we",
    "file",
    "function",
    "test",
    "error",
    "return",
    "value",
    "config",
    "session",
    "message",
    "store",
    "should",
    "update",
    "check",
    "run",
    "build",
    "path",
    "line",
    "import",
    "class",
    "def",
    "self",
    "None",
    "True",
    "False",
    "if",
    "else",
    "for",
    "while",
    "try",
    "except",
    "raise",
    "json",
    "sqlite",
    "query",
    "row",
    "column",
    "index",
    "cache",
    "request",
    "response",
    "status",
    "user",
    "token",
    "model",
    "output",
    "input",
    "list",
    "dict",
    "str",
    "int",
    "async",
    "await",
    "yield",
    "lambda",
    "docker",
    "git",
    "commit",
    "branch",
    "merge",
    "diff",
    "patch",
    "fix",
    "bug",
    "issue",
    "log",
    "debug",
    "warning",
    "trace",
    "stack",
    "frame",
    "module",
    "package",
    "version",
    "install",
    "pip",
    "venv",
    "pytest",
    "assert",
    "expected",
    "actual",
    "failed",
    "passed",
    "skipped",
    "timeout",
    "retry",
    "connection",
    "server",
    "client",
    "port",
    "host",
    "localhost",
    "8080",
    "200",
    "404",
    "500",
    "OK",
    "done",
    "now",
    "then",
    "because",
    "so",
    "but",
    "not",
    "can",
    "will",
    "would",
    "let's",
    "I'll",
    "here",
    "there",
    "which",
)
TOOLS = (
    "terminal",
    "terminal",
    "terminal",
    "read_file",
    "read_file",
    "write_file",
    "patch",
    "search_files",
    "web_search",
)
COMMANDS = (
    "ls -la",
    "git status",
    "git diff --stat",
    "pytest -q",
    "python -m pytest tests -x",
    "cat pyproject.toml",
    "ruff check .",
    "docker compose ps",
    "make build",
    "git log --oneline -5",
)
FILES = (
    "src/app/main.py",
    "src/app/store.py",
    "tests/test_store.py",
    "README.md",
    "pyproject.toml",
    "src/app/cli.py",
    "docs/usage.md",
    "Makefile",
    ".github/workflows/ci.yml",
)
HEX = "0123456789abcdef"
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
SESSION_FIELDS = (
    "id",
    "source",
    "user_id",
    "session_key",
    "chat_id",
    "chat_type",
    "display_name",
    "origin_json",
    "model",
    "model_config",
    "system_prompt",
    "parent_session_id",
    "started_at",
    "ended_at",
    "end_reason",
    "message_count",
    "tool_call_count",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "cwd",
    "git_branch",
    "git_repo_root",
    "billing_provider",
    "billing_base_url",
    "billing_mode",
    "estimated_cost_usd",
    "cost_status",
    "cost_source",
    "title",
    "api_call_count",
    "rewind_count",
    "archived",
)
MESSAGE_FIELDS = (
    "session_id",
    "role",
    "content",
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "timestamp",
    "token_count",
    "finish_reason",
    "reasoning",
    "observed",
    "active",
)

M_ROLE, M_TS, M_ACTIVE = (MESSAGE_FIELDS.index(f) for f in ("role", "timestamp", "active"))
S_ENDED = SESSION_FIELDS.index("ended_at")


@dataclass
class Plan:
    """What one session will be: its id, source, start and message count."""

    index: int
    tag: str  # the 6 hex of an id, or a cron job's id
    source: str
    messages: int
    parent: int | None = None  # index of the cli session a subagent was delegated from
    sid: str = ""  # set once the start time is known
    cwd: str = ""


@dataclass
class Tally:
    """Counters accumulated while a session's messages are generated."""

    tool_calls: int = 0
    api_calls: int = 0
    output_chars: int = 0
    reasoning_chars: int = 0
    rows: list[tuple[Any, ...]] = field(default_factory=list)


class Text:
    """Cheap deterministic text: slices of one long pseudo-random word stream."""

    def __init__(self, rng: random.Random, size: int = 1 << 20) -> None:
        words = rng.choices(WORDS, k=size // 5)
        for i in range(0, len(words), 17):
            words[i] = words[i] + (".\n" if i % 3 == 0 else ",")
        self.corpus = " ".join(words)
        self.limit = len(self.corpus)

    def take(self, rng: random.Random, lo: int, hi: int) -> str:
        """A slice of between ``lo`` and ``hi`` characters."""
        n = rng.randint(lo, hi)
        start = self.corpus.find(" ", rng.randrange(self.limit - n - 64)) + 1  # start on a word
        return self.corpus[start : start + n]


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choices(HEX, k=n))


def _weighted(rng: random.Random, table: tuple[tuple[str, float], ...]) -> str:
    return rng.choices([k for k, _ in table], weights=[w for _, w in table])[0]


def apportion(weights: list[float], total: int, lo: int, hi: int) -> list[int]:
    """Split ``total`` into integer counts proportional to ``weights``, each within ``[lo, hi]``."""
    n = len(weights)
    if not lo * n <= total <= hi * n:
        raise ValueError(f"cannot split {total} messages over {n} sessions within [{lo}, {hi}]")
    scale = total / sum(weights)
    counts = [min(hi, max(lo, int(w * scale))) for w in weights]
    order = sorted(range(n), key=lambda i: -weights[i])
    diff = total - sum(counts)
    while diff:
        step = 1 if diff > 0 else -1
        for i in order if step > 0 else reversed(order):
            if lo <= counts[i] + step <= hi:
                counts[i] += step
                diff -= step
                if not diff:
                    break
    return counts


def _stamp(ts: float) -> str:
    return time.strftime("%Y%m%d_%H%M%S", time.gmtime(ts))


def plan_sessions(rng: random.Random, sessions: int, messages: int, big: int) -> list[Plan]:
    """Sources, ids and message counts of every session; one cli session gets exactly ``big``."""
    if sessions < 2 or big < MIN_MESSAGES:
        raise ValueError("need at least 2 sessions and a big session of at least 2 messages")
    sources = [_weighted(rng, SOURCES) for _ in range(sessions)]
    big_index = rng.randrange(sessions // 4, 3 * sessions // 4 + 1)
    sources[big_index] = "cli"
    if sources[0] == "subagent":
        sources[0] = "cli"
    factor = {"cron": 0.05, "subagent": 0.4, "telegram": 0.5, "discord": 0.5}
    weights = [rng.lognormvariate(0.0, 1.1) * factor.get(s, 1.0) for s in sources]
    del weights[big_index]
    counts = apportion(weights, messages - big, MIN_MESSAGES, max(MIN_MESSAGES, big - 1))
    counts.insert(big_index, big)
    jobs = [_hex(rng, 12) for _ in range(6)]
    plans: list[Plan] = []
    last_cli = 0
    for i, (source, count) in enumerate(zip(sources, counts, strict=True)):
        tag = rng.choice(jobs) if source == "cron" else _hex(rng, 6)
        plans.append(Plan(i, tag, source, count, last_cli if source == "subagent" else None))
        if source == "cli":
            last_cli = i
    return plans


def tool_call(rng: random.Random, text: Text) -> dict[str, Any]:
    """One entry of an assistant row's ``tool_calls``, shaped as Hermes stores it."""
    name = rng.choice(TOOLS)
    if name == "terminal":
        args: dict[str, Any] = {"command": rng.choice(COMMANDS)}
    elif name == "read_file":
        args = {"path": rng.choice(FILES), "offset": 1, "limit": rng.choice((100, 200, 500))}
    elif name == "write_file":
        args = {"path": rng.choice(FILES), "content": text.take(rng, 100, 1500)}
    elif name == "patch":
        old, new = text.take(rng, 20, 300), text.take(rng, 20, 300)
        args = {"path": rng.choice(FILES), "old_string": old, "new_string": new}
    elif name == "search_files":
        args = {"pattern": rng.choice(WORDS), "path": ".", "target": "content"}
    else:
        args = {"query": text.take(rng, 15, 80)}
    call_id = "call_" + "".join(rng.choices(ALNUM, k=24))
    return {
        "id": call_id,
        "call_id": call_id,
        "response_item_id": "fc_" + _hex(rng, 32),
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def tool_result(rng: random.Random, text: Text, name: str) -> str:
    """The JSON a tool row carries as content."""
    body = text.take(rng, 80, 2950)
    if name == "read_file":
        return json.dumps({"content": body, "total_lines": rng.randint(10, 900), "truncated": False})
    if name == "web_search":
        hit = {"title": body[:40], "url": "https://example.com/a", "snippet": body}
        return json.dumps({"results": [hit]})
    failed = rng.random() < 0.08
    error = "command failed" if failed else None
    return json.dumps({"output": body, "exit_code": 1 if failed else 0, "error": error})


def message(sid: str, role: str, content: str, ts: float, **extra: Any) -> tuple[Any, ...]:
    """A ``messages`` row in :data:`MESSAGE_FIELDS` order, active and not observed unless ``extra`` says."""
    row = {"session_id": sid, "role": role, "content": content, "timestamp": ts, "observed": 0, "active": 1}
    row.update(extra)
    return tuple(row.get(f) for f in MESSAGE_FIELDS)


def session_rows(rng: random.Random, text: Text, sid: str, n: int, start: float) -> Tally:
    """Exactly ``n`` message rows for one session: turns of prompt, tool rounds and a reply."""
    tally = Tally()
    rows = tally.rows
    ts = start + rng.uniform(0.5, 5.0)
    while len(rows) < n:
        rows.append(message(sid, "user", text.take(rng, 20, 400), ts))
        rounds = min(int(rng.expovariate(0.45)), 12)
        for _ in range(rounds):
            if len(rows) >= n:
                break
            calls = [tool_call(rng, text) for _ in range(2 if rng.random() < 0.15 else 1)]
            ts += rng.uniform(1.0, 25.0)
            reasoning = text.take(rng, 80, 1200) if rng.random() < 0.3 else None
            content = text.take(rng, 0, 240) if rng.random() < 0.5 else ""
            extra = {"tool_calls": json.dumps(calls), "finish_reason": "tool_calls", "reasoning": reasoning}
            rows.append(message(sid, "assistant", content, ts, **extra))
            tally.api_calls += 1
            tally.tool_calls += len(calls)
            tally.output_chars += len(content)
            tally.reasoning_chars += len(reasoning or "")
            for call in calls:
                if len(rows) >= n:
                    break
                ts += rng.uniform(0.05, 20.0)
                name = call["function"]["name"]
                result = tool_result(rng, text, name)
                rows.append(message(sid, "tool", result, ts, tool_call_id=call["id"], tool_name=name))
        if len(rows) >= n:
            break
        ts += rng.uniform(2.0, 40.0)
        reply = text.take(rng, 50, 2000)
        reasoning = text.take(rng, 100, 1500) if rng.random() < 0.3 else None
        extra = {"token_count": len(reply) // 4, "finish_reason": "stop", "reasoning": reasoning}
        rows.append(message(sid, "assistant", reply, ts, **extra))
        tally.api_calls += 1
        tally.output_chars += len(reply)
        tally.reasoning_chars += len(reasoning or "")
        ts += rng.uniform(5.0, 240.0)
    return tally


def rewind(rng: random.Random, rows: list[tuple[Any, ...]]) -> bool:
    """Mark one earlier turn inactive (``active = 0``) as Hermes' rewind does; False if too short."""
    users = [i for i, r in enumerate(rows) if r[M_ROLE] == "user"]
    if len(users) < 3:
        return False
    k = rng.randrange(len(users) - 1)
    for i in range(users[k], users[k + 1]):
        rows[i] = (*rows[i][:M_ACTIVE], 0)
    return True


def session_row(
    rng: random.Random, plan: Plan, parent: Plan | None, tally: Tally, start: float, rewound: bool
) -> tuple[Any, ...]:
    """The ``sessions`` row matching a session's generated messages."""
    model, provider, base_url = rng.choice(MODELS)
    src = plan.source
    end = tally.rows[-1][M_TS] + rng.uniform(1.0, 120.0)
    end_reason = "cron_complete" if src == "cron" else _weighted(rng, END_REASONS)
    cwd = "" if src == "cron" else ("/home/dev" if src in ("telegram", "discord") else rng.choice(PROJECTS))
    plan.cwd = cwd = parent.cwd if parent else cwd
    in_project = cwd.startswith("/home/dev/src")
    user_id = chat_id = chat_type = session_key = display_name = origin = None
    if src in ("telegram", "discord"):
        user_id = str(rng.randrange(10**8, 10**9))
        chat_id, chat_type = user_id, "dm"
        session_key = f"agent:main:{src}:dm:{chat_id}"
        display_name = rng.choice(("dev", "Alice", "Bob"))
        origin = json.dumps({"platform": src, "chat_id": chat_id, "chat_type": "dm", "user_id": user_id})
    model_config: dict[str, Any] = {"max_iterations": 90, "reasoning_effort": rng.choice(("low", "medium"))}
    if parent:
        model_config["_delegate_from"] = parent.sid
    title = None
    if src in ("cli", "telegram", "discord") and rng.random() < 0.85:
        title = unique_title(f"{rng.choice(TITLE_VERBS)} {rng.choice(TITLE_OBJECTS)}")
    n = len(tally.rows)
    input_tokens = tally.api_calls * rng.randint(3_000, 12_000)
    output_tokens = tally.output_chars // 4
    cost = round(input_tokens * 3e-6 + output_tokens * 15e-6, 6)
    row = {
        "id": plan.sid,
        "source": src,
        "user_id": user_id,
        "session_key": session_key,
        "chat_id": chat_id,
        "chat_type": chat_type,
        "display_name": display_name,
        "origin_json": origin,
        "model": model,
        "model_config": json.dumps(model_config),
        "parent_session_id": parent and parent.sid,
        "system_prompt": SYSTEM_PROMPTS[plan.index % len(SYSTEM_PROMPTS)],
        "started_at": start,
        "ended_at": end,
        "end_reason": end_reason,
        "message_count": n,
        "tool_call_count": tally.tool_calls,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_read_tokens": int(input_tokens * 0.7),
        "cache_write_tokens": int(input_tokens * 0.05),
        "reasoning_tokens": tally.reasoning_chars // 4,
        "cwd": cwd,
        "git_branch": rng.choice(BRANCHES) if in_project else None,
        "git_repo_root": cwd if in_project else None,
        "billing_provider": provider,
        "billing_base_url": base_url,
        "billing_mode": "per_token",
        "estimated_cost_usd": cost,
        "cost_status": "estimated",
        "cost_source": "pricing_table",
        "title": title,
        "api_call_count": tally.api_calls,
        "rewind_count": 1 if rewound else 0,
        "archived": 0,
    }
    return tuple(row[f] for f in SESSION_FIELDS)


SYSTEM_PROMPTS: list[str] = []
TITLES_USED: dict[str, int] = {}


def unique_title(base: str) -> str:
    """A title not used yet: Hermes keeps titles unique, repeats become ``base #2``, ``base #3``."""
    seen = TITLES_USED.get(base, 0) + 1
    TITLES_USED[base] = seen
    return base if seen == 1 else f"{base} #{seen}"


def make_system_prompts(rng: random.Random, text: Text) -> None:
    """A handful of system prompts (1–4 KB) that sessions share, as Hermes' prompt varies little."""
    SYSTEM_PROMPTS[:] = [
        "You are Hermes, an autonomous agent.\n\n" + text.take(rng, 1000, 4000) for _ in range(8)
    ]


def sessions_and_rows(
    rng: random.Random, plans: list[Plan]
) -> Iterator[tuple[tuple[Any, ...], list[tuple[Any, ...]]]]:
    """Every session row with its message rows, in start order, ids made from the start times."""
    text = Text(rng)
    make_system_prompts(rng, text)
    TITLES_USED.clear()
    start = EPOCH
    for plan in plans:
        start += rng.expovariate(1 / 1200.0) + 5.0
        stamp = _stamp(start)
        plan.sid = f"cron_{plan.tag}_{stamp}" if plan.source == "cron" else f"{stamp}_{plan.tag}"
        tally = session_rows(rng, text, plan.sid, plan.messages, start)
        rewound = rng.random() < 0.01 and rewind(rng, tally.rows)
        parent = None if plan.parent is None else plans[plan.parent]
        row = session_row(rng, plan, parent, tally, start, rewound)
        yield row, tally.rows
        start = row[S_ENDED]  # the next session starts after this one ended


def create_schema(db_path: Path) -> None:
    """Let Hermes' own ``SessionDB`` create the database and its schema."""
    from hermes_state import SessionDB

    db_path.parent.mkdir(parents=True, exist_ok=True)
    db = SessionDB(db_path=db_path)
    db.close()


def _insert_sql(conn: sqlite3.Connection, table: str, fields: tuple[str, ...]) -> str:
    columns = {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}
    missing = [f for f in fields if f not in columns]
    if missing:
        raise RuntimeError(f"Hermes' {table} table has no column(s) {missing}")
    return f"INSERT INTO {table} ({', '.join(fields)}) VALUES ({', '.join('?' * len(fields))})"


def _drop_message_triggers(conn: sqlite3.Connection) -> list[str]:
    """Drop the triggers on ``messages`` (FTS maintenance); return their SQL to re-create them."""
    found = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages' ORDER BY name"
    ).fetchall()
    for name, _ in found:
        conn.execute(f'DROP TRIGGER "{name}"')
    return [sql for _, sql in found]


def fill(db_path: Path, plans: list[Plan], rng: random.Random) -> tuple[int, int]:
    """Bulk-load sessions and messages in one transaction; return (sessions, messages) written."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA cache_size=-262144")
    session_sql = _insert_sql(conn, "sessions", SESSION_FIELDS)
    message_sql = _insert_sql(conn, "messages", MESSAGE_FIELDS)
    n_sessions = n_messages = 0
    conn.execute("BEGIN")
    triggers = _drop_message_triggers(conn)
    sessions: list[tuple[Any, ...]] = []
    rows: list[tuple[Any, ...]] = []
    for session, messages in sessions_and_rows(rng, plans):
        sessions.append(session)
        rows.extend(messages)
        if len(rows) >= FLUSH_ROWS:
            conn.executemany(session_sql, sessions)
            conn.executemany(message_sql, rows)
            n_sessions, n_messages = n_sessions + len(sessions), n_messages + len(rows)
            sessions, rows = [], []
    conn.executemany(session_sql, sessions)
    conn.executemany(message_sql, rows)
    n_sessions, n_messages = n_sessions + len(sessions), n_messages + len(rows)
    for sql in triggers:
        conn.execute(sql)
    conn.execute("COMMIT")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return n_sessions, n_messages


def generate(out_dir: Path, sessions: int, messages: int, big: int, seed: int) -> dict[str, Any]:
    """Build ``out_dir/hermes_home/state.db`` and ``out_dir/meta.json``; return the metadata."""
    db_path = out_dir / "hermes_home" / "state.db"
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(db_path) + suffix).unlink(missing_ok=True)
    began = time.perf_counter()
    create_schema(db_path)
    rng = random.Random(seed)
    plans = plan_sessions(rng, sessions, messages, big)
    n_sessions, n_messages = fill(db_path, plans, rng)
    big_plan = max(plans, key=lambda p: p.messages)
    meta = {
        "db": str(db_path),
        "seed": seed,
        "sessions": n_sessions,
        "messages": n_messages,
        "big_session_id": big_plan.sid,
        "big_session_messages": big_plan.messages,
        "db_bytes": db_path.stat().st_size,
        "generation_seconds": round(time.perf_counter() - began, 2),
    }
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return meta


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--big-session", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Generate the store and print its big session's id."""
    args = parse_args(argv)
    try:
        meta = generate(args.out_dir, args.sessions, args.messages, args.big_session, args.seed)
    except ValueError as exc:
        print(f"synthetic_store: {exc}", file=sys.stderr)
        return 2
    size_mb = meta["db_bytes"] / 1e6
    counts = f"{meta['sessions']} sessions, {meta['messages']} messages"
    print(f"wrote {meta['db']}: {counts}, {size_mb:.1f} MB in {meta['generation_seconds']} s")
    print(f"big session: {meta['big_session_id']} ({meta['big_session_messages']} messages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
