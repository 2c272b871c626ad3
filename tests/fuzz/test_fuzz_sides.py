"""Fuzzing the side-file readers and the timeline over a home with one generated file of each kind."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from fuzzsides import build, check_home, homes
from hypothesis import HealthCheck, given, settings


def run_case(spec: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "hermes_home"
        build(home, spec)
        check_home(home, spec)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(homes())
def test_generated_side_files_are_read_whole(spec):
    run_case(spec)
