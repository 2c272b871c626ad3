"""The long soak: Hermes' ``SessionDB`` writes (appends, rewinds, compactions) in one process while
``sync_index`` and ``search`` run in another (``tests/soak.py``). Reports the duration, the writes, the
syncs and the rows checked, and every problem (a committed row a sync missed, a row indexed twice, an
exception, "database is locked"). Run::

    .venv/bin/python bench/soak.py               # 120 s
    .venv/bin/python bench/soak.py --seconds 600
    .venv/bin/python bench/soak.py --quick       # 3 s, for CI
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from soak import run_soak


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--quick", action="store_true", help="3 seconds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "hermes_home"
        home.mkdir()
        report = run_soak(home, Path(tmp) / "index.db", 3.0 if args.quick else args.seconds)
    print(json.dumps(dataclasses.asdict(report)))
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
