"""Benchmark recall inside Hermes (issue 5): the plugin's ``pre_llm_call`` hook against ``trail recall`` run
as a subprocess, on the same prompts, index and store.

Usage::

    python bench/bench_plugin.py [--quick] [--prompts 200] [--store-dir DIR] [--index FILE]
                                 [--out-dir DIR] [--subprocess N]

1. **Index**: with ``--index``, a copy of that index (the copy is the one written to; the store it was
   built from, named in its ``stores`` table, is only read). Otherwise the synthetic store
   (``bench/synthetic_store.py``, built when missing: 1M messages, or 20k with ``--quick``) and an index
   of it in ``OUT_DIR``, built when missing.
2. **Prompts**: ``--prompts`` user messages of the store, drawn with a fixed seed (and 10 others to warm
   up): what a person typed there, whole.
3. **Hook**: ``trail install hermes``'s code installs the plugin into a Hermes home in ``OUT_DIR``;
   hermes-agent's own ``PluginManager`` loads it, and each prompt goes through
   ``PluginManager.invoke_hook("pre_llm_call", …)`` with the keyword arguments Hermes passes, at the
   plugin's default settings (deadline 0.5 s, budget 2000 bytes). The background sync it starts finds the
   store unchanged.
4. **Recall in process**: the same recall without the deadline (``Recaller.recall``), for the latency a
   deadline would hide.
5. **Subprocess**: ``trail recall <the hook's query> --budget 2000 --index … --db …`` per prompt (the first
   ``--subprocess`` prompts), as a memory tool that starts a process per turn does; its page is compared
   with the hook's.
6. **Fix notes** (issue 17): as many failing ``terminal`` results of the store (exit code neither 0 nor -1,
   with the command the assistant ran) through ``PluginManager.invoke_hook("transform_tool_result", …)``,
   then the same without the deadline (``Recaller.fix``), then the same again with nothing remembered
   (``fix.py`` keeps what it learnt of an index's common words for the process: cleared before each).

Prints the figures side by side, then one JSON line. Targets: hook p95 ≤ 50 ms, fix note p95 ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from bench_index import load_average, percentile, r, ratio, remove_db
from bench_reader import FULL, QUICK, ensure_store, trail_command
from hermes_trail.index import schema as trail_schema
from hermes_trail.index.sync import sync_index

BENCH_DIR = Path(__file__).resolve().parent
OUT_DIRS = {False: BENCH_DIR / "out" / "plugin", True: BENCH_DIR / "out" / "plugin-quick"}
SEED = 7
WARMUP = 10
TARGET_P95_MS = 50.0
SESSION = "20991231_235959_bench0"  # the session the prompts are typed in: none of the store's


def _store_of(index: Path) -> Path:
    conn = sqlite3.connect(f"{index.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT path FROM stores").fetchall()
    finally:
        conn.close()
    if len(rows) != 1:
        raise SystemExit(f"{index} indexes {len(rows)} stores; give an index of one store")
    return Path(rows[0][0])


def prepare(args: argparse.Namespace) -> tuple[Path, Path, dict[str, Any]]:
    """The index to read (a copy this run may write) and the store it indexes."""
    out = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    index = out / "index.db"
    facts: dict[str, Any] = {}
    if args.index is not None:
        store = _store_of(args.index)
        if not store.is_file():
            raise SystemExit(f"{args.index} was built from {store}, which is not there")
        if args.index.resolve() != index.resolve():
            print(f"copying {args.index} to {index} ...", flush=True)
            remove_db(index)
            shutil.copyfile(args.index, index)
            if Path(f"{args.index}-wal").exists():
                shutil.copyfile(f"{args.index}-wal", f"{index}-wal")
        return index, store, facts
    spec = QUICK if args.quick else FULL
    store_dir = args.store_dir or spec["dir"]
    ensure_store(store_dir, spec)
    store = store_dir / "hermes_home" / "state.db"
    current = False
    if index.exists():
        conn = sqlite3.connect(index)
        try:
            current = trail_schema.format_of(conn) == trail_schema.FORMAT
        finally:
            conn.close()
    if not current or _store_of(index) != store.resolve():
        remove_db(index)
        print(f"building the index of {store} in {index} ...", flush=True)
        report = sync_index(index, dbs=[store])
        facts["build_s"] = report.seconds
    return index, store, facts


def prompts(store: Path, count: int) -> tuple[list[str], list[str]]:
    """``count`` user prompts of the store and :data:`WARMUP` others, drawn with a fixed seed."""
    conn = sqlite3.connect(f"{store.resolve().as_uri()}?immutable=1", uri=True)
    try:
        ids = [row[0] for row in conn.execute("SELECT id FROM messages WHERE role = 'user'")]
        chosen = random.Random(SEED).sample(ids, min(len(ids), count + WARMUP))
        one = "SELECT content FROM messages WHERE id = ?"
        texts = [conn.execute(one, (i,)).fetchone()[0] for i in chosen]
    finally:
        conn.close()
    texts = [t for t in texts if isinstance(t, str) and t.strip()]
    return texts[WARMUP:], texts[:WARMUP]


def failures(store: Path, count: int) -> list[tuple[str, str]]:
    """``count`` failing ``terminal`` results of the store with the command each ran, drawn with a fixed
    seed: ``(command, result JSON)``."""
    conn = sqlite3.connect(f"{store.resolve().as_uri()}?immutable=1", uri=True)
    try:
        rows = conn.execute(
            "SELECT id, session_id, tool_call_id, content FROM messages WHERE role = 'tool' "
            "AND tool_name = 'terminal' AND content LIKE '%\"exit_code\": %' AND content NOT "
            "LIKE '%\"exit_code\": 0%' AND content NOT LIKE '%\"exit_code\": -1%'"
        ).fetchall()
        chosen = random.Random(SEED).sample(rows, min(len(rows), count))
        found: list[tuple[str, str]] = []
        for row_id, session, call_id, content in chosen:
            ran = conn.execute(
                "SELECT tool_calls FROM messages WHERE session_id = ? AND id < ? AND role = "
                "'assistant' ORDER BY id DESC LIMIT 1",
                (session, row_id),
            ).fetchone()
            command = ""
            for call in json.loads(ran[0] or "[]") if ran else []:
                if call.get("id") == call_id:
                    arguments = call.get("function", {}).get("arguments") or "{}"
                    command = str(json.loads(arguments).get("command") or "")
            found.append((command, content))
    finally:
        conn.close()
    return found


def tool_result(command: str, result: str, session: str) -> dict[str, Any]:
    """``transform_tool_result``'s keyword arguments as hermes-agent 0.19 passes them (``model_tools.py``)."""
    return {
        "tool_name": "terminal",
        "args": {"command": command},
        "result": result,
        "task_id": "bench",
        "session_id": session,
        "tool_call_id": "call_bench",
        "turn_id": "turn",
        "api_request_id": "",
        "duration_ms": 5,
        "status": "ok",
        "error_type": None,
        "error_message": None,
    }


def hermes_home(out: Path, index: Path, store: Path) -> Path:
    """A Hermes home with hermes-trail installed, and the environment pointing the plugin at the index."""
    from hermes_trail.integrations.hermes import install

    home = out / "hermes_home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    os.environ["HERMES_HOME"] = str(home)
    os.environ["TRAIL_INDEX"] = str(index)
    os.environ["TRAIL_HERMES_DB"] = str(store)  # what the index holds: the sync finds nothing to do
    install.apply_install(install.plan_install(install.Target(home, "default")))
    return home


def turn(prompt: str) -> dict[str, Any]:
    """``pre_llm_call``'s keyword arguments as hermes-agent 0.19 passes them (``agent/turn_context.py``)."""
    return {
        "session_id": SESSION,
        "task_id": "bench",
        "turn_id": "turn",
        "user_message": prompt,
        "conversation_history": [{"role": "user", "content": prompt}],
        "is_first_turn": False,
        "model": "bench/model",
        "platform": "cli",
        "sender_id": "",
    }


def summary(ms: list[float]) -> dict[str, float]:
    return {
        "p50": percentile(ms, 0.5),
        "p95": percentile(ms, 0.95),
        "max": max(ms) if ms else float("nan"),
        "mean": statistics.fmean(ms) if ms else float("nan"),
    }


def main() -> None:
    os.environ["TRAIL_ENCODE_BEHIND"] = "0"  # no vector stage behind the queries takes a core from the timing
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the 20k-message store, a smoke run")
    parser.add_argument("--prompts", type=int, default=None, help="prompts timed (default 200; 40 quick)")
    parser.add_argument("--subprocess", type=int, default=None, help="of them, also as `trail recall`")
    parser.add_argument("--store-dir", type=Path, default=None)
    parser.add_argument("--index", type=Path, default=None, help="an existing index (copied, never written)")
    parser.add_argument("--out-dir", type=Path, default=None)
    args = parser.parse_args()
    args.out_dir = args.out_dir or OUT_DIRS[args.quick]
    count = args.prompts or (40 if args.quick else 200)
    in_subprocess = min(args.subprocess if args.subprocess is not None else count, count)

    index, store, facts = prepare(args)
    timed, warmup = prompts(store, count)
    hermes_home(args.out_dir, index, store)
    from hermes_cli.plugins import PluginManager

    from hermes_trail.index.fix import forget
    from hermes_trail.integrations.hermes import runtime

    manager = PluginManager()
    manager.discover_and_load()
    hooks = manager._hooks.get("pre_llm_call", [])
    recaller = next(cb.__self__ for cb in hooks if hasattr(cb.__self__, "recaller")).recaller
    for prompt in warmup:
        manager.invoke_hook("pre_llm_call", **turn(prompt))
    recaller.wait_for_sync(600)

    hook_ms: list[float] = []
    pages: list[str] = []
    for prompt in timed:
        began = time.perf_counter()
        got = manager.invoke_hook("pre_llm_call", **turn(prompt))
        hook_ms.append((time.perf_counter() - began) * 1000)
        pages.append(got[0]["context"] if got else "")
    recaller.wait_for_sync(600)
    free_ms: list[float] = []
    for prompt in timed:
        began = time.perf_counter()
        recaller.recall(prompt, SESSION, deadline=60.0, remember=False)
        free_ms.append((time.perf_counter() - began) * 1000)
    recaller.wait_for_sync(600)

    sub_ms: list[float] = []
    same = 0
    for prompt, page in list(zip(timed, pages, strict=True))[:in_subprocess]:
        query = runtime.prompt_query(prompt)
        cmd = [
            *trail_command(),
            "recall",
            query,
            "--budget",
            str(recaller.settings.budget),
            "--index",
            str(index),
            "--db",
            str(store),
        ]
        began = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        sub_ms.append((time.perf_counter() - began) * 1000)
        if done.returncode != 0:
            raise SystemExit(f"`trail recall` failed: {done.stderr[-800:]}")
        same += done.stdout.rstrip("\n") == page

    fix_ms: list[float] = []
    fix_free_ms: list[float] = []
    noted = 0
    failing = failures(store, count)
    for command, result in failing[:WARMUP]:
        manager.invoke_hook("transform_tool_result", **tool_result(command, result, SESSION + "w"))
    recaller.wait_for_sync(600)
    for command, result in failing:
        began = time.perf_counter()
        got = manager.invoke_hook("transform_tool_result", **tool_result(command, result, SESSION))
        fix_ms.append((time.perf_counter() - began) * 1000)
        noted += bool(got)
    recaller.wait_for_sync(600)
    for command, result in failing:
        error = runtime.failed_terminal({"command": command}, result) or ""
        began = time.perf_counter()
        recaller.fix(error, SESSION + "f", deadline=60.0)
        fix_free_ms.append((time.perf_counter() - began) * 1000)
    recaller.wait_for_sync(600)
    fix_cold_ms: list[float] = []
    for command, result in failing:
        error = runtime.failed_terminal({"command": command}, result) or ""
        forget()
        began = time.perf_counter()
        recaller.fix(error, SESSION + "c", deadline=60.0)
        fix_cold_ms.append((time.perf_counter() - began) * 1000)
    recaller.wait_for_sync(600)

    hook, free, sub = summary(hook_ms), summary(free_ms), summary(sub_ms)
    fix, fix_free, fix_cold = summary(fix_ms), summary(fix_free_ms), summary(fix_cold_ms)
    found = sum(1 for p in pages if p)
    cut = sum(1 for ms in hook_ms if ms >= recaller.settings.deadline * 1000 * 0.98)
    size = store.stat().st_size / 1e6
    print(f"\nrecall for {len(timed)} prompts, {store} ({size:,.0f} MB), index {index}")
    print(f"{'':24} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9} {'mean ms':>9}")
    rows = [
        ("hook (Hermes invoke)", hook),
        ("recall, no deadline", free),
        (f"trail recall x{len(sub_ms)}", sub),
        (f"fix note x{len(fix_ms)}", fix),
        ("fix, no deadline", fix_free),
        ("fix, nothing remembered", fix_cold),
    ]
    for name, s in rows:
        print(f"{name:24} {s['p50']:9.1f} {s['p95']:9.1f} {s['max']:9.1f} {s['mean']:9.1f}")
    p50, p95 = ratio(sub["p50"], hook["p50"]), ratio(sub["p95"], hook["p95"])
    print(f"\nsubprocess / hook: p50 {p50:.1f}x, p95 {p95:.1f}x")
    deadline = recaller.settings.deadline
    print(
        f"recall added to {found} of {len(timed)} prompts; {cut} cut by the {deadline:g} s deadline; "
        f"same page as `trail recall` for {same} of {len(sub_ms)}"
    )
    verdict = "met" if hook["p95"] <= TARGET_P95_MS else "NOT met"
    print(f"target p95 <= {TARGET_P95_MS:g} ms in process: {verdict}")
    fix_verdict = "met" if fix["p95"] <= TARGET_P95_MS else "NOT met"
    print(
        f"fix notes on {noted} of {len(fix_ms)} failing commands; target p95 <= {TARGET_P95_MS:g} ms: "
        f"{fix_verdict}"
    )
    figures = {
        "prompts": len(timed),
        "store_bytes": store.stat().st_size,
        "quick": args.quick,
        **{f"hook_{k}_ms": r(hook[k], 2) for k in ("p50", "p95", "max")},
        **{f"recall_{k}_ms": r(free[k], 2) for k in ("p50", "p95", "max")},
        **{f"subprocess_{k}_ms": r(sub[k], 2) for k in ("p50", "p95")},
        "ratio_p50": r(p50, 2),
        "ratio_p95": r(p95, 2),
        "recalled": found,
        "cut_by_deadline": cut,
        "same_page": same,
        "compared": len(sub_ms),
        "target_met": hook["p95"] <= TARGET_P95_MS,
        "load_average": load_average(),
        **{f"fix_{k}_ms": r(fix[k], 2) for k in ("p50", "p95", "max")},
        **{f"fix_free_{k}_ms": r(fix_free[k], 2) for k in ("p50", "p95", "max")},
        **{f"fix_cold_{k}_ms": r(fix_cold[k], 2) for k in ("p50", "p95", "max")},
        "failures": len(fix_ms),
        "noted": noted,
        "fix_target_met": fix["p95"] <= TARGET_P95_MS,
        **facts,
    }
    print(json.dumps(figures))
    if found == 0:
        raise SystemExit("the hook recalled nothing for any prompt")


if __name__ == "__main__":
    main()
