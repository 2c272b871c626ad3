"""``trail handoff``: the Markdown brief of a session, on homes written by Hermes' ``SessionDB``."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import hermesdb
from hermes_trail.cli.app import app
from hermesdb import CHAT_ID, CODING_ID, WORK_ID

pytest.importorskip("hermes_state")

TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
ROOT_ID = "20261110_090000_aaaa01"
CHILD_ID = "20261110_100000_aaaa02"
OPS_ID = "20261111_090000_0b5e11"
LONG_ID = "20261112_090000_10a9e1"
HELPER_ID = "20261102_100500_5ab0a1"  # a sub-agent the coding session delegated to
HEADINGS = ["## Goal", "## Where it stands", "## Files in flight", "## Last commands", "## Resume"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def compressed() -> list[hermesdb.SessionSpec]:
    """A conversation compressed once: the child opens with Hermes' own summary, then goes on."""
    from agent.context_compressor import SUMMARY_PREFIX

    t = hermesdb.T0 + 8 * 86400
    parent = [
        hermesdb.user("Migrate the billing tables to the new schema.", timestamp=t),
        *hermesdb.terminal_exchange("call_m1", "alembic upgrade head", "ERROR: column exists", 1),
        hermesdb.assistant("The column already exists; I will write a guard.", timestamp=t + 30),
    ]
    drop = hermesdb.call("call_d1", "terminal", command=f"psql -c 'drop table old' {TOKEN}")
    child = [
        hermesdb.user(
            f"{SUMMARY_PREFIX} The user wants the billing migration; it failed once.", timestamp=t + 100
        ),
        hermesdb.assistant(
            "",
            hermesdb.call("call_p1", "write_file", path="/srv/billing/migrate.py", content="guard = True\n"),
            timestamp=t + 110,
        ),
        hermesdb.tool("call_p1", "write_file", {"bytes_written": 13}, timestamp=t + 111),
        *hermesdb.terminal_exchange("call_m2", "alembic upgrade head", "OK", 0),
        hermesdb.assistant("The migration ran: billing is on the new schema.", timestamp=t + 200),
        hermesdb.user("Good. Now drop the old tables.", timestamp=t + 300),
        hermesdb.assistant("", drop, timestamp=t + 310),
        hermesdb.tool(
            "call_d1",
            "terminal",
            {
                "output": "",
                "exit_code": -1,
                "status": "blocked",
                "error": "BLOCKED: User denied this command.",
            },
            timestamp=t + 311,
        ),
        hermesdb.assistant("You denied the drop; the old tables stay.", timestamp=t + 320),
    ]
    return [
        hermesdb.SessionSpec(ROOT_ID, parent, cwd="/srv/billing", end_reason="compression", started_at=t),
        hermesdb.SessionSpec(
            CHILD_ID, child, cwd="/srv/billing", parent_session_id=ROOT_ID, started_at=t + 90
        ),
    ]


@pytest.fixture
def root(template, isolated_env) -> Path:
    """Hermes' own home, ``~/.hermes`` (a fresh copy of :func:`template` for each test)."""
    return Path(shutil.copytree(template, isolated_env / ".hermes"))


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A chat, the coding session, a compressed conversation, a long chat, and a session in the profile
    ``work``, written once."""
    return hermesdb.write_home(
        tmp_path_factory.mktemp("handoff") / "home",
        [
            hermesdb.chat(CHAT_ID, ("What is WAL?", "A write-ahead log."), title="About WAL"),
            hermesdb.coding(CODING_ID, start=hermesdb.T0 + 3600),
            hermesdb.chat(
                HELPER_ID,
                ("Find every caller of app.parse.", "Two callers: cli.py and web.py."),
                start=hermesdb.T0 + 3700,
                source="subagent",
                parent_session_id=CODING_ID,
            ),
            *compressed(),
            hermesdb.long_chat(LONG_ID, start=hermesdb.T0 + 9 * 86400),
        ],
        profiles={
            "work": [hermesdb.chat(WORK_ID, ("Standup notes?", "Three items."), start=hermesdb.T0 + 86400)]
        },
    )


def sections(text: str) -> dict[str, str]:
    """The brief's sections by heading."""
    parts = re.split(r"^(## .+)$", text.split("\n_Brief by hermes-trail")[0], flags=re.MULTILINE)
    return {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def test_a_coding_session(root):
    code, out, err = run("handoff", CODING_ID)
    assert code == 0, err
    assert out.startswith("# Handoff: Run the tests and fix what fails.\n")
    assert f"Session `{CODING_ID}` · profile default · project `/home/dev/project`" in out
    part = sections(out)
    assert list(part) == [*HEADINGS[:-1], "## Linked sessions", HEADINGS[-1]]
    assert part["## Goal"] == "> Run the tests and fix what fails."
    assert part["## Where it stands"].endswith("> All four tests pass now.")
    assert re.fullmatch(
        r"- `/home/dev/project/app.py`: replace \(\+1 −1\), last 2026-11-02 10:\d\d UTC",
        part["## Files in flight"],
    )
    assert part["## Last commands"] == "- `pytest -q` → exit 1 (failed)\n- `pytest -q` → exit 0"
    # The sub-agent it delegated to, where more of its work is: by id, to be read with `trail show`.
    assert part["## Linked sessions"] == f"- delegate: `{HELPER_ID}`"
    assert part["## Resume"] == f"`hermes --resume {CODING_ID}`"


def test_a_compressed_conversation_is_read_as_one(root):
    code, out, _ = run("handoff", ROOT_ID)
    assert code == 0
    part = sections(out)
    assert part["## Goal"] == "> Migrate the billing tables to the new schema."  # not the summary
    assert part["## Latest request"] == "> Good. Now drop the old tables."
    assert part["## Where it stands"].endswith("> You denied the drop; the old tables stay.")
    assert "> The migration ran: billing is on the new schema." in part["## Where it stands"]
    assert part["## Files in flight"].startswith("- `/srv/billing/migrate.py`: write")
    commands = part["## Last commands"].splitlines()
    assert commands[:2] == ["- `alembic upgrade head` → exit 1 (failed)", "- `alembic upgrade head` → exit 0"]
    assert commands[2].endswith("→ never ran: blocked by user")
    assert f"2 parts (compacted; first part `{ROOT_ID}`)" in out and f"Session `{CHILD_ID}`" in out
    assert part["## Resume"] == f"`hermes --resume {CHILD_ID}`"  # the live part
    assert "## Linked sessions" not in part  # its continuation is one of its parts, no linked session
    assert TOKEN not in out and "[REDACTED:github-token]" in out


def test_a_profile_session_resumes_with_its_profile(root):
    (root / "active_profile").write_text("work\n")
    _, out, _ = run("handoff", WORK_ID)
    assert sections(out)["## Resume"] == f"`hermes -p work --resume {WORK_ID}`"
    _, out, _ = run("handoff", CHAT_ID)
    part = sections(out)
    assert part["## Resume"] == f"`hermes -p default --resume {CHAT_ID}`"
    assert out.startswith("# Handoff: About WAL\n")
    assert part["## Files in flight"] == "_No file was edited._"
    assert part["## Last commands"] == "_No command ran._"


@pytest.mark.parametrize("budget", [700, 1200, 2500])
def test_the_budget_is_kept_and_every_section_stays(root, budget):
    code, out, _ = run("handoff", LONG_ID, "--budget", str(budget))
    assert code == 0 and len(out.encode()) <= budget
    assert list(sections(out)) == [*HEADINGS[:1], "## Latest request", *HEADINGS[1:]]
    assert "Question 0 about the deploy pipeline?" in out and "Question 119" in out and "cut to" not in out


def test_below_the_shortest_form_it_cuts_but_keeps_how_to_resume(root):
    code, _, err = run("handoff", LONG_ID, "--budget", "100")  # below the least the help promises
    assert code == 2 and "--budget" in err
    code, out, _ = run("handoff", LONG_ID, "--budget", "400")
    assert code == 0 and len(out.encode()) <= 400
    assert "… (cut to the 400-byte budget)" in out
    assert out.rstrip().endswith(f"## Resume\n\n`hermes --resume {LONG_ID}`")


def test_a_tighter_budget_shortens_quotes_before_dropping_anything(root):
    _, full, _ = run("handoff", LONG_ID)
    assert len(full.encode()) <= 4000 and sections(full)["## Where it stands"].count("> Answer") == 3
    assert "…" not in sections(full)["## Where it stands"]
    _, short, _ = run("handoff", LONG_ID, "--budget", "2500")
    stands = sections(short)["## Where it stands"]
    assert 1 <= stands.count("> Answer") < 3 and "…" in stands and "Answer 119:" in stands


def test_a_command_holding_backticks_stays_one_code_span(root):
    from hermes_trail.handoff import _code

    assert _code("echo `date`") == "`` echo `date` ``"
    assert _code("plain") == "`plain`"


def test_unknown_and_ambiguous_ids(root):
    code, _, err = run("handoff", "19990101")
    assert code == 1 and "no session '19990101'" in err
    code, _, err = run("handoff", "2026111")
    assert code == 1 and "ambiguous" in err


def test_the_demo_says_why_it_cannot_be_resumed(isolated_env):
    code, out, err = run("handoff", "20261124_091502")
    assert code == 0 and "demo home" in err
    assert "## Resume\n\n_20261124_091502_a1b2c3 is in the demo home bundled with hermes-trail" in out
    assert "`python -m pytest -q` → exit 0" in out
