"""How fast ``redact`` is on ordinary text with no secrets, and what it finds there (false positives).

Corpora, all read from this machine (nothing is downloaded):

- ``code``: Python source of the installed packages (``site-packages``), cut into rows of about 2 KB;
- ``prose``: the long descriptions (``METADATA``) of the installed distributions: Markdown and reST;
- ``hermes``: the message text of the real Hermes stores in ``../shared/corpus`` when present: prompts,
  replies, tool-call arguments, tool outputs (each row clipped like the indexer clips it). It is small
  (80 KB), so its rows are timed 25 times over.

Each corpus is timed two ways: row by row, as the indexer calls ``redact``, and as one string. MB are
10^6 bytes of UTF-8. ``--scan`` also counts what ``find_secrets`` reports in every text file of
``site-packages`` and ``../shared`` (about 76 MB): false positives, apart from real example credentials
in documentation. Run::

    .venv/bin/python bench/bench_redact.py            # about 8 MB of code, everything else available
    .venv/bin/python bench/bench_redact.py --mb 2 --show 20
    .venv/bin/python bench/bench_redact.py --scan --show 20
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import sysconfig
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from hermes_trail.redact import find_secrets, redact

ROW = 2_000
CLIP = 16_000
SHARED_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def _rows(text: str, size: int = ROW) -> list[str]:
    """Cut at line ends into rows of about ``size`` characters."""
    rows: list[str] = []
    start = 0
    while start < len(text):
        end = text.find("\n", start + size)
        end = len(text) if end == -1 else end + 1
        rows.append(text[start:end])
        start = end
    return rows


def code_corpus(limit: int) -> list[str]:
    site = Path(sysconfig.get_paths()["purelib"])
    parts: list[str] = []
    total = 0
    for path in sorted(site.rglob("*.py")):
        if "hermes_trail" in path.parts or "test" in path.name:
            continue  # our own module (its docstrings show the markers), and test fixtures with fake keys
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        parts.append(text)
        total += len(text)
        if total >= limit:
            break
    return _rows("".join(parts))


def prose_corpus(limit: int) -> list[str]:
    site = Path(sysconfig.get_paths()["purelib"])
    parts: list[str] = []
    total = 0
    for path in sorted(site.glob("*.dist-info/METADATA")):
        text = path.read_text(encoding="utf-8", errors="replace")
        body = text.split("\n\n", 1)[1] if "\n\n" in text else ""
        parts.append(body)
        total += len(body)
        if total >= limit:
            break
    return _rows("".join(parts))


def hermes_corpus() -> list[str]:
    rows: list[str] = []
    for db in sorted(SHARED_CORPUS.glob("*/hermes_home/**/state.db")):
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            for content, tool_calls in conn.execute("SELECT content, tool_calls FROM messages"):
                for value in (content, tool_calls):
                    if isinstance(value, str) and value:
                        rows.append(value[:CLIP])
        finally:
            conn.close()
    return rows


def scan_files(show: int) -> dict[str, int]:
    """What find_secrets reports in every text file of site-packages and ../shared."""
    site = Path(sysconfig.get_paths()["purelib"])
    suffixes = {".py", ".md", ".txt", ".rst", ".json", ".yaml", ".yml", ".toml", ".cfg", ".ini"}
    paths = [p for p in site.rglob("*") if p.suffix in suffixes or p.name == "METADATA"]
    paths += [p for p in SHARED_CORPUS.parent.rglob("*") if p.suffix in (".txt", ".md", ".json")]
    found: Counter[str] = Counter()
    total = 0
    for path in paths:
        if "hermes_trail" in path.parts or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        total += len(text.encode("utf-8", "surrogatepass"))
        for kind, s, e in find_secrets(text):
            found[kind] += 1
            if sum(found.values()) <= show:
                start = text.rfind("\n", 0, s) + 1
                end = text.find("\n", e)
                print(f"  {kind}: {path.name}: {text[start : end if end != -1 else len(text)][:140]!r}")
    print(f"scan    {total / 1e6:7.2f} MB {len(paths):7d} files findings {sum(found.values())} {dict(found)}")
    return dict(found)


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(name: str, rows: list[str], repeat: int, show: int) -> dict[str, object]:
    nbytes = sum(len(r.encode("utf-8", "surrogatepass")) for r in rows)
    blob = "".join(rows)
    row_s = _best(lambda: [redact(r) for r in rows], repeat)
    blob_s = _best(lambda: redact(blob), repeat)
    found: Counter[str] = Counter()
    examples: list[str] = []
    for r in rows:
        for kind, s, e in find_secrets(r):
            found[kind] += 1
            if len(examples) < show:
                line_start = r.rfind("\n", 0, s) + 1
                line_end = r.find("\n", e)
                examples.append(f"  {kind}: {r[line_start : line_end if line_end != -1 else len(r)][:160]!r}")
    print(
        f"{name:7} {nbytes / 1e6:7.2f} MB {len(rows):7d} rows  "
        f"rows {nbytes / row_s / 1e6:7.1f} MB/s  blob {nbytes / blob_s / 1e6:7.1f} MB/s  "
        f"findings {sum(found.values())} {dict(found) if found else ''}"
    )
    for line in examples:
        print(line)
    return {
        "corpus": name,
        "mb": round(nbytes / 1e6, 3),
        "rows": len(rows),
        "rows_mb_s": round(nbytes / row_s / 1e6, 1),
        "blob_mb_s": round(nbytes / blob_s / 1e6, 1),
        "findings": dict(found),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=8.0, help="megabytes of code (prose: a quarter)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--show", type=int, default=0, help="print this many findings per corpus")
    parser.add_argument("--scan", action="store_true", help="count findings in all installed text files")
    args = parser.parse_args(argv)
    limit = int(args.mb * 1e6)
    corpora = {"code": code_corpus(limit), "prose": prose_corpus(limit // 4), "hermes": hermes_corpus() * 25}
    results = [measure(name, rows, args.repeat, args.show) for name, rows in corpora.items() if rows]
    speeds = [float(str(r["rows_mb_s"])) for r in results]
    summary: dict[str, object] = {
        "results": results,
        "median_rows_mb_s": statistics.median(speeds) if speeds else None,
    }
    if args.scan:
        summary["scan_findings"] = scan_files(args.show)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
