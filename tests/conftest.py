"""Shared fixtures: a hermetic environment, a Hermes home written by Hermes, and the shared corpus."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import hermesdb
from hermesdb import CHAT_ID, CODING_ID, WORK_ID

REPO = Path(__file__).resolve().parents[1]
# Environment variables that choose what Hermes or hermes-trail reads; none may leak in from the machine.
LOCATION_VARS = (
    "HERMES_HOME",
    "TRAIL_HERMES_HOME",
    "TRAIL_HERMES_DB",
    "TRAIL_HERMES_PROFILES_ROOT",
    "HERMES_DATA_DIR_SUFFIX",
)


def pytest_report_header() -> str:
    return f"sqlite: {sqlite3.sqlite_version}"


@pytest.fixture(autouse=True)
def isolated_env(monkeypatch, tmp_path_factory):
    """No location variable from the machine, and a HOME of our own: ``~/.hermes`` is never the real one."""
    for name in LOCATION_VARS:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("user-home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return home


@pytest.fixture
def hermes_sandbox(monkeypatch, tmp_path):
    """``HERMES_HOME`` at an empty tmp directory, for tests that run Hermes code themselves."""
    sandbox = tmp_path / "hermes-sandbox"
    sandbox.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(sandbox))
    return sandbox


@pytest.fixture
def hermes_home(tmp_path) -> Path:
    """A Hermes home written through ``SessionDB``: a titled chat and a coding session at the root, and
    one session in the profile ``work``. Ids: ``hermesdb.CHAT_ID``, ``CODING_ID``, ``WORK_ID``."""
    return hermesdb.write_home(
        tmp_path / "hermes_home",
        [
            hermesdb.chat(CHAT_ID, ("What is WAL?", "A write-ahead log."), title="About WAL"),
            hermesdb.coding(CODING_ID, start=hermesdb.T0 + 3600),
        ],
        profiles={
            "work": [hermesdb.chat(WORK_ID, ("Standup notes?", "Three items."), start=hermesdb.T0 + 86400)]
        },
    )


@pytest.fixture
def corpus_dir() -> Path:
    """``../shared/corpus`` beside the repository; the test is skipped when it is absent."""
    path = REPO.parent / "shared" / "corpus"
    if not path.is_dir():
        pytest.skip(f"no shared corpus at {path}")
    return path


@pytest.fixture
def run_trail():
    """Run ``trail`` in a new process (``python -m hermes_trail``) with this test's environment."""

    def run(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "hermes_trail", *map(str, args)],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            timeout=60,
        )

    return run


@pytest.fixture
def newer_hermes() -> str:
    """A Python with a newer hermes-agent (schema 31+) installed, named by ``TRAIL_TEST_HERMES_NEXT``."""
    python = os.environ.get("TRAIL_TEST_HERMES_NEXT")
    if not python:
        pytest.skip("TRAIL_TEST_HERMES_NEXT names no Python with a newer hermes-agent")
    return python


@pytest.fixture
def offline() -> list[str]:
    """A prefix that runs a command in a new network namespace (only a loopback, down): the real
    ``hermes`` looks names up as it starts, and a test sends nothing off this machine. Skipped where
    namespaces cannot be made, or no ``hermes`` is installed beside this Python."""
    import shutil

    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a network namespace (unshare -n)")
    if not (Path(sys.executable).parent / "hermes").exists():
        pytest.skip("no hermes command beside this Python")
    return [unshare, "-n"]

