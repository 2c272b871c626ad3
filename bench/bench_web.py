"""Benchmark the web viewer in a real Chromium: time to first paint of the dashboard and of the big
session's replay, and the size of that session's exported HTML file.

Usage::

    python bench/bench_web.py [--store-dir bench/out/store] [--repeat 3] [--quick]

The store is the synthetic one (``synthetic_store.py``; built when missing, as for ``bench_reader.py``);
its big session has 5,000 messages (1,000 with ``--quick``). The store is only read. The viewer runs in
this process on loopback, and each page load is a fresh browser context (no cache). For each page the
figures come from the page's own Performance API:

- **FCP**: ``first-contentful-paint``, the first time the browser painted any content;
- **dashboard**: ``trail-sessions`` (the session table drawn) and ``trail-charts`` (the first charts);
- **replay**: ``trail-first-turns`` (the first turns drawn) and ``trail-all-turns`` (every turn in the
  page), for the first load (*cold*: the server decodes the session's first rows for the first turns,
  then reads and decodes it whole) and the next (*warm*: the view is kept).

The exported HTML is opened from disk the same way. The last line is one JSON object with every figure.

Screenshots, for a person to look at, go to ``bench/out/screens/``: the dashboard and a long compacted
replay, each on a desktop (1280x900) and a phone (390x844) viewport, with how far each page scrolls
sideways (it should not). The compacted session is written once into ``bench/out/compacted`` by Hermes'
own ``SessionDB`` and ``ContextCompressor`` (its summary call answered here), when hermes-agent is
importable; otherwise that replay is left out. Its rows span two working days with a night between (the
day separators and the idle gap on the timeline show in the screenshots); each compaction's copies carry
the time it happened.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from bench_reader import FULL, QUICK, ensure_store  # noqa: E402

CHROMIUM = os.environ.get("TRAIL_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
TIMING = """() => {
  const mark = (name) => {
    const e = performance.getEntriesByName(name);
    return e.length ? e[0].startTime : null;
  };
  return {fcp: mark("first-contentful-paint"), sessions: mark("trail-sessions"), charts: mark("trail-charts"),
          first: mark("trail-first-turns"), all: mark("trail-all-turns"),
          turns: document.querySelectorAll("article.turn").length};
}"""


def load(browser: Any, url: str, ready: str, timeout: float = 300_000) -> dict[str, Any]:
    """Open ``url`` in a fresh context, wait for ``ready``, return the page's own timings (ms)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    started = time.perf_counter()
    page.goto(url)
    page.wait_for_selector(ready, timeout=timeout)
    figures = dict(page.evaluate(TIMING))
    figures["wall"] = (time.perf_counter() - started) * 1000
    context.close()
    return figures


SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
SIDEWAYS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
COMPACTED_ID = "20261120_090000_c0a7c7"


# The shape of the compacted session; a store written to an older one is written again.
COMPACTED_SHAPE = "two-days-2"


class _Clock:
    """``time`` as hermes_state sees it while the session is written: ``time()`` reads the session's own
    clock (so its start, its rows and the copies each compaction makes carry the times of a working day,
    a night, and the next morning), everything else is the real module."""

    def __init__(self, start: float) -> None:
        self.now = start

    def time(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def compacted_store(where: Path, exchanges: int = 400, every: int = 100) -> Path | None:
    """A long session compacted in place every ``every`` exchanges, written by Hermes' own code (a request,
    a terminal call with its output, and the answer per exchange) over two days with a night between;
    ``None`` without hermes-agent."""
    db = where / "hermes_home" / "state.db"
    shape = where / "shape"
    if db.exists() and shape.exists() and shape.read_text() == COMPACTED_SHAPE:
        return db
    try:
        from types import SimpleNamespace

        import agent.context_compressor as context_compressor
        import hermes_state
        from hermes_state import SessionDB
    except ImportError:
        return None
    import shutil

    shutil.rmtree(db.parent, ignore_errors=True)
    db.parent.mkdir(parents=True, exist_ok=True)
    old = os.environ.get("HERMES_HOME")
    os.environ["HERMES_HOME"] = str(db.parent)
    answered = [0]
    # 09:00 UTC three days ago, a message every 20 s, and a 20-hour night near the end
    clock = _Clock((int(time.time()) // 86400 - 3) * 86400 + 9 * 3600)
    real_time = hermes_state.time
    hermes_state.time = clock  # type: ignore[assignment]

    def summarise(**_: Any) -> Any:
        answered[0] += 1
        body = f"## Goal\nKeep the service green (summary {answered[0]}).\n## Progress\n- ran the checks"
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=body))])

    real = context_compressor.call_llm
    context_compressor.call_llm = summarise
    try:
        compressor = context_compressor.ContextCompressor(
            model="bench/model",
            quiet_mode=True,
            config_context_length=8000,
            protect_first_n=3,
            protect_last_n=6,
        )
        store = SessionDB(db_path=db)
        store.create_session(COMPACTED_ID, "cli", model="bench/model", cwd="/home/dev/service")
        store.set_session_title(COMPACTED_ID, "A long compacted session")
        live: list[dict[str, Any]] = []

        def add(message: dict[str, Any]) -> None:
            clock.now += 20
            store.append_message(COMPACTED_ID, **message, timestamp=clock.now)
            live.append(dict(message))

        for i in range(exchanges):
            if i == exchanges - exchanges // 8:  # after the last compaction: the night is replayed
                clock.now += 20 * 3600
            call_id = f"call_{i}"
            call = {
                "id": call_id,
                "call_id": call_id,
                "type": "function",
                "function": {"name": "terminal", "arguments": json.dumps({"command": f"make check-{i}"})},
            }
            add({"role": "user", "content": f"Step {i}: run check {i} and tell me what failed."})
            add({"role": "assistant", "content": "", "tool_calls": [call], "finish_reason": "tool_calls"})
            failed = i % 7 == 3
            result = {"output": f"check {i}\n" + "ok\n" * 20, "exit_code": 1 if failed else 0, "error": None}
            tool = {"role": "tool", "tool_call_id": call_id, "tool_name": "terminal"}
            add({**tool, "content": json.dumps(result)})
            answer = f"Check {i} " + ("failed once." if failed else "passed.")
            add({"role": "assistant", "content": answer, "finish_reason": "stop"})
            if (i + 1) % every == 0 and i + 1 < exchanges:
                live = compressor.compress(live, force=True)
                store.archive_and_compact(COMPACTED_ID, live)
        store.end_session(COMPACTED_ID, "cli_close")
        store.close()
        shape.write_text(COMPACTED_SHAPE)
    finally:
        context_compressor.call_llm = real
        hermes_state.time = real_time  # type: ignore[assignment]
        if old is None:
            os.environ.pop("HERMES_HOME", None)
        else:
            os.environ["HERMES_HOME"] = old
    return db


def screenshots(browser: Any, pages: dict[str, str], out: Path) -> dict[str, int]:
    """Each page at each size, as a PNG in ``out``; how far each scrolls sideways (px)."""
    out.mkdir(parents=True, exist_ok=True)
    sideways: dict[str, int] = {}
    for name, (url, ready) in pages.items():
        for size, (width, height) in SIZES.items():
            context = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector(ready, timeout=300_000)
            page.wait_for_timeout(300)
            sideways[f"{name}_{size}"] = int(page.evaluate(SIDEWAYS))
            page.screenshot(path=str(out / f"{name}-{size}.png"), full_page=name == "dashboard")
            if name.startswith("replay"):
                for _ in range(3):
                    page.keyboard.press("j")
                page.wait_for_timeout(300)
                page.screenshot(path=str(out / f"{name}-{size}-stepped.png"))
                days = page.locator("article.turn .day")
                if days.count() > 1:  # where the next day starts, after the night (a gap on the strip)
                    turn = days.nth(1).locator("xpath=..")
                    page.locator("input.scrub").fill(
                        str(
                            page.locator("article.turn:not(.hidden-row)").evaluate_all(
                                "(all, id) => all.findIndex(t => t.id === id)", turn.get_attribute("id")
                            )
                        )
                    )
                    page.wait_for_timeout(300)
                    page.screenshot(path=str(out / f"{name}-{size}-next-day.png"))
            context.close()
    return sideways


def median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(values), 1) if values else None


def main(argv: list[str] | None = None) -> int:
    os.environ["TRAIL_ENCODE_BEHIND"] = "0"  # no vector stage behind the queries takes a core from the timing
    parser = argparse.ArgumentParser(description="Time the web viewer's first paint in Chromium.")
    where = "default: bench/out/store, or bench/out/quick with --quick"
    parser.add_argument("--store-dir", type=Path, help=where)
    parser.add_argument("--repeat", type=int, default=3, help="page loads per figure; the median is shown")
    parser.add_argument("--quick", action="store_true", help="the 20k-message store, for a CI smoke run")
    args = parser.parse_args(argv)
    spec = QUICK if args.quick else FULL
    store_dir = args.store_dir or spec["dir"]
    meta = ensure_store(store_dir, spec)
    db = store_dir / "hermes_home" / "state.db"
    big = meta["big_session_id"]
    repeat = max(1, args.repeat)

    from playwright.sync_api import sync_playwright

    from hermes_trail import open_history
    from hermes_trail.export import render
    from hermes_trail.web.app import WebApp
    from hermes_trail.web.server import start

    if not Path(CHROMIUM).exists():
        print(f"no Chromium at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 1
    compacted = compacted_store(BENCH_DIR / "out" / "compacted")
    scratch = Path(tempfile.mkdtemp(prefix="trail-bench-web-"))
    web = WebApp(dbs=(db,), index=scratch / "index.db")  # the index is never built: no search is timed
    server = start(web, "127.0.0.1", 0)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    figures: dict[str, Any] = {
        "quick": args.quick,
        "repeat": repeat,
        "sessions": meta["sessions"],
        "messages": meta["messages"],
        "big_session_messages": meta["big_session_messages"],
    }
    try:
        started = time.perf_counter()
        with open_history(dbs=[db], catalog=False) as history:
            session = history.load(history.find(big))
            family = history.family(session)
            html = render(session, "html", family=family).text
        export_s = time.perf_counter() - started
        page_path = scratch / "big.html"
        page_path.write_text(html, encoding="utf-8")
        raw = html.encode("utf-8")
        figures.update(
            export_html_bytes=len(raw),
            export_html_gzip_bytes=len(gzip.compress(raw, 6)),
            export_seconds=round(export_s, 3),
        )

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            web.catalog.history()  # read the catalog once, as a running viewer has
            # Replays first: the dashboard's charts start the background reading of every session,
            # which would share the cores with whatever is timed after it.
            replay_url = f"{base}/session?ref=default:{big}"
            colds = []
            for _ in range(repeat):  # cold each time: the views the viewer keeps are dropped first
                web.forget_views()
                colds.append(load(browser, replay_url, "body[data-drawn=all]"))
            warm = [load(browser, replay_url, "body[data-drawn=all]") for _ in range(repeat)]
            exported = [load(browser, page_path.as_uri(), "body[data-drawn=all]") for _ in range(repeat)]
            dashboard = [
                load(browser, base + "/", "body[data-sessions=ready][data-stats]") for _ in range(repeat)
            ]
            shots = {
                "dashboard": (base + "/", "body[data-sessions=ready][data-stats]"),
                "replay-big": (replay_url, "body[data-drawn=all]"),
            }
            extra = None
            if compacted is not None:
                extra = WebApp(dbs=(compacted,), index=scratch / "compacted-index.db")
                other = start(extra, "127.0.0.1", 0)
                shots["replay-compacted"] = (
                    f"http://127.0.0.1:{other.server_address[1]}/session?ref={COMPACTED_ID}",
                    "body[data-drawn=all]",
                )
            try:
                figures["sideways_px"] = screenshots(browser, shots, BENCH_DIR / "out" / "screens")
            finally:
                if extra is not None:
                    other.shutdown()
                    extra.close()
            browser.close()
    finally:
        server.shutdown()
        web.close()
        import shutil

        shutil.rmtree(scratch, ignore_errors=True)

    figures.update(
        dashboard_fcp_ms=median(dashboard, "fcp"),
        dashboard_sessions_ms=median(dashboard, "sessions"),
        dashboard_charts_ms=median(dashboard, "charts"),
        replay_cold_fcp_ms=median(colds, "fcp"),
        replay_cold_first_turns_ms=median(colds, "first"),
        replay_cold_all_turns_ms=median(colds, "all"),
        replay_warm_fcp_ms=median(warm, "fcp"),
        replay_warm_first_turns_ms=median(warm, "first"),
        replay_warm_all_turns_ms=median(warm, "all"),
        replay_turns=colds[0]["turns"],
        export_fcp_ms=median(exported, "fcp"),
        export_first_turns_ms=median(exported, "first"),
        export_all_turns_ms=median(exported, "all"),
    )
    print(f"store      {db}: {meta['sessions']:,} sessions, {meta['messages']:,} messages")
    print(
        f"big        {big} ({meta['big_session_messages']:,} messages, "
        f"{figures['replay_turns']:,} turns shown)"
    )
    print(f"{'page':<22}{'FCP ms':>9}{'content ms':>12}{'all turns ms':>14}")
    print(
        f"{'dashboard':<22}{figures['dashboard_fcp_ms']:>9}{figures['dashboard_sessions_ms']:>12}"
        f"{'':>14}   charts {figures['dashboard_charts_ms']} ms"
    )
    for name, key in (
        ("replay, cold", "replay_cold"),
        ("replay, warm", "replay_warm"),
        ("exported HTML", "export"),
    ):
        print(
            f"{name:<22}{figures[key + '_fcp_ms']:>9}{figures[key + '_first_turns_ms']:>12}"
            f"{figures[key + '_all_turns_ms']!s:>14}"
        )
    print(
        f"exported HTML: {figures['export_html_bytes'] / 1e6:.1f} MB "
        f"({figures['export_html_gzip_bytes'] / 1e6:.1f} MB gzipped), "
        f"written in {export_s:.2f} s"
    )
    print(
        f"screenshots in {BENCH_DIR / 'out' / 'screens'}; sideways scroll (px): {figures.get('sideways_px')}"
    )
    print(json.dumps(figures))
    ok = all(figures[k] is not None for k in ("dashboard_fcp_ms", "replay_warm_fcp_ms", "export_fcp_ms"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
