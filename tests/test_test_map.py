"""Tests mirror the source (issue 18): every module with behaviour has a test module of its name or a line
in tests/README.md saying where it is covered, so a newcomer finds the tests of any module."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
PACKAGE = ROOT / "src" / "hermes_trail"


def test_every_module_with_behaviour_has_its_tests_named():
    tests = {p.stem.removeprefix("test_") for p in (ROOT / "tests").glob("test_*.py")}
    listed = set(re.findall(r"`([a-z_/]+\.py)`", (ROOT / "tests" / "README.md").read_text()))
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        if not re.search(r"^(def|class) ", text, flags=re.M):
            continue  # a package face or constants: no behaviour of its own
        relative = path.relative_to(PACKAGE).as_posix()
        named = {path.stem, f"{path.parent.name}_{path.stem}"}  # test_sort.py or test_timeline_sort.py
        if named & tests or relative in listed:
            continue
        missing.append(relative)
    assert missing == [], f"no test module of the name, nor a line in tests/README.md: {missing}"
