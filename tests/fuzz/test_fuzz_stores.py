"""Fuzzing the store reader: generated stores never raise, and every row is accounted for.

See ``fuzzstores.py`` for what is generated. The suite runs a small sample; ``bench/fuzz.py`` runs
thousands. Regressions the fuzzer found are kept below as fixed examples.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from fuzzstores import check_store, stores, write
from hypothesis import HealthCheck, given, settings


def run_case(spec: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "state.db"
        write(path, spec)
        check_store(path, spec, Path(tmp))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(stores())
def test_generated_stores_are_read_whole(spec):
    run_case(spec)
