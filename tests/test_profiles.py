"""``hermes.profiles``: which home a ``hermes`` command opens, checked against Hermes' own decision
(``hermes_cli.main._apply_profile_override`` from ``hermes-agent``, run in a child process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_trail.hermes import profiles

pytest.importorskip("hermes_cli")

# Runs Hermes' own pre-parse of -p/--profile once per case, in one process, and prints HERMES_HOME as
# it leaves it (None: Hermes keeps its default home), or "exit" when Hermes refuses to start. Each case
# names the active_profile file to have in place (or none).
_ORACLE = r"""
import json, os, sys
from pathlib import Path
import hermes_cli.main as main
cases = json.loads(sys.argv[1])
saved = dict(os.environ)
out = []
for case in cases:
    marker = Path(case["marker"])
    marker.unlink(missing_ok=True)
    if case["active"] is not None:
        marker.write_text(case["active"] + "\n")
    os.environ.clear()
    os.environ.update(case["env"])
    sys.argv = ["hermes", *case["args"], "--resume", "x"]
    try:
        main._apply_profile_override()
        out.append(os.environ.get("HERMES_HOME"))
    except SystemExit:
        out.append("exit")
    os.environ.clear()
    os.environ.update(saved)
print(json.dumps(out))
"""


Case = tuple[dict[str, str], list[str], str | None]


def hermes_opens(cases: list[Case], marker: Path, sandbox: Path) -> list[Path | None]:
    payload = json.dumps(
        [{"env": env, "args": args, "active": active, "marker": str(marker)} for env, args, active in cases]
    )
    child_env = {**os.environ, "HERMES_HOME": str(sandbox)}  # importing Hermes sets up logs under it
    done = subprocess.run(
        [sys.executable, "-c", _ORACLE, payload],
        capture_output=True,
        text=True,
        env=child_env,
        timeout=60,
        check=True,
    )
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    opened: list[Path | None] = []
    for (env, _, _), answer in zip(cases, answers, strict=True):
        if answer == "exit":
            opened.append(None)
        else:
            opened.append(Path(answer) if answer else Path(env["HOME"]) / ".hermes")
    return opened


@pytest.fixture
def root(isolated_env) -> Path:
    """``~/.hermes`` with the profiles ``work``, ``tmp`` and ``Caps`` (directories only)."""
    home = isolated_env / ".hermes"
    for name in ("work", "tmp", "Caps"):
        (home / "profiles" / name).mkdir(parents=True)
    return home


def test_opened_home_agrees_with_hermes(root, isolated_env, tmp_path):
    user = {"HOME": str(isolated_env), "PATH": os.environ.get("PATH", "")}
    elsewhere = tmp_path / "srv" / "hermes"
    (elsewhere / "profiles" / "ops").mkdir(parents=True)
    (elsewhere / "active_profile").write_text("ops\n")
    cases: list[Case] = [
        (user, [], None),
        (user, ["-p", "work"], None),
        (user, ["-p", "default"], None),
        (user, ["-p", "tmp"], None),  # reserved: Hermes refuses to start
        (user, ["-p", "Caps"], None),  # outside the pattern: not taken as a profile at all
        (user, [], "work"),  # the sticky active profile
        (user, ["-p", "default"], "work"),
        (user, [], "default"),
        (user, [], "tmp"),  # an active profile Hermes cannot take
        ({**user, "HERMES_HOME": str(root / "profiles" / "work")}, [], "tmp"),  # a profile home is trusted
        ({**user, "HERMES_HOME": str(root / "profiles" / "work")}, ["-p", "default"], None),
        ({**user, "HERMES_HOME": str(elsewhere)}, [], None),  # its own root, whose active profile is ops
        ({**user, "HERMES_HOME": str(elsewhere)}, ["-p", "default"], None),
        ({**user, "HERMES_HOME": str(elsewhere / "profiles" / "ops")}, ["-p", "default"], None),
        ({**user, "HERMES_HOME": str(root / "scratch")}, [], None),  # inside ~/.hermes: root stays
    ]
    ours: list[Path | None] = []
    for env, args, active in cases:
        marker = root / "active_profile"
        marker.unlink(missing_ok=True)
        if active is not None:
            marker.write_text(active + "\n")
        ours.append(profiles.opened_home(env, args[1] if args else None))
    theirs = hermes_opens(cases, root / "active_profile", tmp_path / "sandbox")
    assert [str(p) if p else None for p in ours] == [str(p) if p else None for p in theirs]
    assert ours[1] == root / "profiles" / "work" and ours[3] is None and ours[5] == root / "profiles" / "work"
    assert ours[11] == elsewhere / "profiles" / "ops" and ours[12] == elsewhere


@pytest.mark.parametrize(
    ("name", "refused"),
    [
        ("work", False),
        ("a_b-9", False),
        ("chat", False),
        ("tmp", True),
        ("default", True),
        ("hermes", True),
        ("Caps", True),
        ("-x", True),
        ("a.b", True),
        ("x" * 64, False),
        ("x" * 65, True),
    ],
)
def test_name_refusal_follows_hermes_validation(name, refused):
    from hermes_cli.profiles import validate_profile_name

    assert (profiles.name_refusal(name) is not None) is refused
    try:
        validate_profile_name(name)
        hermes_takes = name != "default"  # "default" validates, as the root's alias, never profiles/default
    except ValueError:
        hermes_takes = False
    assert hermes_takes is not refused


def test_active_profile_reads_as_hermes_does(tmp_path):
    assert profiles.active_profile(tmp_path) is None
    (tmp_path / "active_profile").write_text("  Work \n")
    assert profiles.active_profile(tmp_path) == "work"
    (tmp_path / "active_profile").write_text("Default")
    assert profiles.active_profile(tmp_path) is None
    (tmp_path / "active_profile").write_bytes(b"\xff\xfe")
    assert profiles.active_profile(tmp_path) is None
