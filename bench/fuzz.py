"""The long fuzz run: thousands of generated stores and homes through the readers (``tests/fuzz/``).

Runs the properties of ``tests/fuzz/fuzzstores.py`` (stores) and ``tests/fuzz/fuzzsides.py`` (side files
of every kind, and the timeline over them) for ``--cases`` generated cases in all, and reports the cases
run and the distinct failures found (Hypothesis shrinks each to a minimal example, printed). Run::

    .venv/bin/python bench/fuzz.py                 # 10,000 cases (stores 70 %, homes 30 %)
    .venv/bin/python bench/fuzz.py --quick         # 200 cases, for CI
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "fuzz"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fuzzsides
import fuzzstores
from hypothesis import HealthCheck, given, settings


def _run(name: str, strategy: Any, case: Any, examples: int, seed: int) -> tuple[int, list[str]]:
    ran = [0]

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=True,
    )
    @given(strategy)
    def prop(spec: Any) -> None:
        ran[0] += 1
        with tempfile.TemporaryDirectory() as tmp:
            case(Path(tmp), spec)

    failures: list[str] = []
    try:
        prop._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
        prop()
    except BaseExceptionGroup as group:
        failures = ["".join(traceback.format_exception(e)) for e in group.exceptions]
    except Exception as exc:
        failures = ["".join(traceback.format_exception(exc))]
    return ran[0], failures


def _store(tmp: Path, spec: Any) -> None:
    fuzzstores.write(tmp / "state.db", spec)
    fuzzstores.check_store(tmp / "state.db", spec, tmp)


def _home(tmp: Path, spec: Any) -> None:
    fuzzsides.build(tmp / "home", spec)
    fuzzsides.check_home(tmp / "home", spec)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help="200 cases")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # Hypothesis' warnings about large reprs of generated files
    total = 200 if args.quick else args.cases
    started = time.monotonic()
    report: dict[str, Any] = {}
    failed = 0
    for name, strategy, case, share in (
        ("stores", fuzzstores.stores(), _store, 0.7),
        ("side files", fuzzsides.homes(), _home, 0.3),
    ):
        ran, failures = _run(name, strategy, case, int(total * share), args.seed)
        for text in failures:
            print(f"--- failure ({name})\n{text[-4000:]}", file=sys.stderr)
        report[name] = {"cases": ran, "failures": len(failures)}
        failed += len(failures)
    report["seconds"] = round(time.monotonic() - started, 1)
    report["cases"] = sum(v["cases"] for v in report.values() if isinstance(v, dict))
    report["failures"] = failed
    print(json.dumps(report))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
