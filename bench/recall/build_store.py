"""Write the recall store: a Hermes home written through Hermes' own ``SessionDB`` (hermes-agent 0.19.0).

Usage::

    python bench/recall/build_store.py OUT_DIR            # writes OUT_DIR/hermes_home (root, work and bot)
    python bench/recall/build_store.py --queries FILE     # (re)write the queries, and summaries.jsonl beside
    python bench/recall/build_store.py --summaries FILE   # only the targets' summaries

The sessions and queries are described in ``scenarios.py`` (see ``catalog.py`` for the shapes); this
script checks the ground truth (:meth:`Catalog.check`), then replays every session through ``SessionDB``
as Hermes' handlers do: ``create_session`` (with the gateway peer for Telegram sessions and
``_delegate_from`` for sub-agents), ``append_message`` with explicit ``timestamp=`` values, OpenAI-style
``tool_calls`` and their ``tool`` rows, ``set_session_title``, ``update_token_counts`` and
``end_session``. Hermes stamps ``sessions.started_at``/``ended_at`` with its clock and has no method to
set them, so they are fixed by an ``UPDATE`` per session afterwards (as ``tests/hermesdb.py`` does), with
``session_model_usage.first_seen``/``last_seen``, so the same code writes the same rows.

Hermes' FTS triggers fill ``messages_fts`` and ``messages_fts_trigram`` as the rows go in, so Hermes' own
search works on the result. Sessions are written in time order, so message ids grow with time as in a real
store. ``OUT_DIR/meta.json`` records the counts and a fingerprint of the code that wrote the store;
``OUT_DIR/queries.jsonl`` the queries that go with it, ``OUT_DIR/summaries.jsonl`` the summaries of the
targets, memory entries and skills. Each profile's ``memories/MEMORY.md``, ``memories/USER.md`` and
``skills/.../SKILL.md`` are written after the stores, as plain files, as Hermes writes them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sqlite3
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from catalog import END_REASONS, Catalog, Sess  # noqa: E402
from scenarios import build  # noqa: E402

PROFILES = ("work", "bot")
GATEWAYS = ("telegram", "discord")
SOURCES = ("catalog.py", "scenarios.py", "build_store.py")


def fingerprint() -> str:
    """A hash of the code that makes the store: a store with another fingerprint is stale."""
    digest = hashlib.sha1()
    for name in SOURCES:
        digest.update((HERE / name).read_bytes())
    return digest.hexdigest()[:16]


def _create(db: Any, sess: Sess) -> None:
    kw: dict[str, Any] = {"model": sess.model, "cwd": sess.cwd}
    if sess.profile:
        kw["profile_name"] = sess.profile
    if sess.parent is not None:
        kw["parent_session_id"] = sess.parent.id
        kw["model_config"] = {
            "max_iterations": 50,
            "reasoning_config": None,
            "_delegate_from": sess.parent.id,
        }
    else:
        kw["model_config"] = {"max_iterations": 90, "reasoning_config": None}
    if sess.source in GATEWAYS:
        key = f"agent:main:{sess.source}:dm:{sess.chat}"
        kw.update(user_id=sess.chat, chat_id=sess.chat, chat_type="dm", session_key=key)
    db.create_session(sess.id, sess.source, **kw)
    if sess.source in GATEWAYS:
        origin = {
            "platform": sess.source,
            "chat_id": sess.chat,
            "chat_type": "dm",
            "user_id": sess.chat,
            "user_name": "dev",
            "chat_name": "dev",
        }
        db.record_gateway_session_peer(
            sess.id,
            source=sess.source,
            user_id=sess.chat,
            session_key=kw["session_key"],
            chat_id=sess.chat,
            chat_type="dm",
            display_name="dev",
            origin_json=json.dumps(origin),
        )


def write_session(db: Any, sess: Sess) -> None:
    _create(db, sess)
    for msg in sess.messages:
        db.append_message(sess.id, **msg)
    if sess.title:
        db.set_session_title(sess.id, sess.title)
    rng = random.Random(f"tokens:{sess.key}")
    chars = sum(len(m.get("content") or "") for m in sess.messages)
    db.update_token_counts(
        sess.id,
        model=sess.model,
        input_tokens=2000 + chars // 2 + rng.randrange(4000),
        output_tokens=chars // 8 + rng.randrange(600),
        api_call_count=1 + sum(m["role"] == "tool" for m in sess.messages),
    )
    db.end_session(sess.id, END_REASONS[sess.source])
    ended = sess.messages[-1]["timestamp"] + 2 if sess.messages else sess.start

    def fix_times(conn: sqlite3.Connection) -> None:
        conn.execute(
            "UPDATE sessions SET started_at = ?, ended_at = ? WHERE id = ?", (sess.start, ended, sess.id)
        )
        conn.execute(
            "UPDATE session_model_usage SET first_seen = ?, last_seen = ? WHERE session_id = ?",
            (sess.start, ended, sess.id),
        )

    db._execute_write(fix_times)


def write_home(cat: Catalog, home: Path) -> dict[str, Any]:
    """Write ``home/state.db`` and ``home/profiles/<profile>/state.db``; returns counts per store."""
    os.environ["HERMES_HOME"] = str(home)  # Hermes reads it at import and may log under it
    from hermes_state import SessionDB

    stores = {None: home / "state.db"}
    stores.update({p: home / "profiles" / p / "state.db" for p in PROFILES})
    meta: dict[str, Any] = {}
    for profile, path in stores.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
        db = SessionDB(db_path=path)
        try:
            for sess in cat.sessions:
                if sess.profile == profile:
                    write_session(db, sess)
        finally:
            db.close()
        conn = sqlite3.connect(path)
        try:
            counts = {
                "sessions": conn.execute("SELECT count(*) FROM sessions").fetchone()[0],
                "messages": conn.execute("SELECT count(*) FROM messages").fetchone()[0],
                "messages_fts": conn.execute("SELECT count(*) FROM messages_fts").fetchone()[0],
                "bytes": path.stat().st_size,
            }
        finally:
            conn.close()
        if counts["messages_fts"] != counts["messages"]:
            raise SystemExit(
                f"{path}: Hermes' FTS holds {counts['messages_fts']} of {counts['messages']} rows"
            )
        meta[str(path.relative_to(home.parent))] = counts
    return meta


def write_notes(cat: Catalog, home: Path) -> dict[str, int]:
    """Write the memory files and skills of every profile, as Hermes does: plain files under its home.

    ``memories/MEMORY.md`` and ``memories/USER.md`` hold entries joined by ``\\n§\\n`` (no final newline),
    ``skills/[<category>/]<name>/SKILL.md`` YAML front matter and a body. Old ones are removed first.
    """
    import shutil

    for profile in (None, *PROFILES):
        base = home / "profiles" / profile if profile else home
        for sub in ("memories", "skills"):
            shutil.rmtree(base / sub, ignore_errors=True)
    counts = {"memory_files": 0, "memory_entries": 0, "skills": 0}
    for (profile, rel), text in sorted(cat.note_files().items(), key=lambda kv: (kv[0][0] or "", kv[0][1])):
        path = (home / "profiles" / profile if profile else home) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if rel.startswith("memories/"):
            counts["memory_files"] += 1
            counts["memory_entries"] += text.count("\n§\n") + 1
        else:
            counts["skills"] += 1
    return counts


def write_jsonl(rows: list[dict[str, Any]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_queries(cat: Catalog, path: Path) -> None:
    """The queries, and the targets' summaries next to them (``summaries.jsonl``)."""
    write_jsonl(cat.query_rows(), path)
    write_jsonl(cat.summary_rows(), path.with_name("summaries.jsonl"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "out_dir", nargs="?", type=Path, help="writes OUT_DIR/hermes_home and OUT_DIR/meta.json"
    )
    parser.add_argument(
        "--queries", type=Path, help="write the queries (JSON lines) to this file, summaries.jsonl next to it"
    )
    parser.add_argument(
        "--summaries", type=Path, help="write only the targets' summaries (JSON lines) to this file"
    )
    args = parser.parse_args(argv)
    if args.out_dir is None and args.queries is None and args.summaries is None:
        parser.error("give OUT_DIR, --queries FILE, --summaries FILE, or several")
    cat = build()
    problems = cat.check()
    if problems:
        print("ground truth problems:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    if args.queries:
        write_queries(cat, args.queries)
        print(f"{len(cat.queries)} queries -> {args.queries}")
    if args.summaries:
        write_jsonl(cat.summary_rows(), args.summaries)
        print(f"{len(cat.summary_rows())} summaries -> {args.summaries}")
    if args.out_dir:
        home = args.out_dir / "hermes_home"
        stores = write_home(cat, home)
        notes = write_notes(cat, home)
        kinds: dict[str, int] = {}
        for q in cat.queries:
            kinds[q.kind] = kinds.get(q.kind, 0) + 1
        sources: dict[str, int] = {}
        for s in cat.sessions:
            sources[s.source] = sources.get(s.source, 0) + 1
        write_queries(cat, args.out_dir / "queries.jsonl")
        hints: dict[str, int] = {}
        for row in cat.summary_rows():
            hints[row["kind_hint"]] = hints.get(row["kind_hint"], 0) + 1
        meta = {
            "fingerprint": fingerprint(),
            "stores": stores,
            "sources": sources,
            "queries": kinds,
            "notes": notes,
            "summaries": hints,
        }
        (args.out_dir / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
        print(json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
