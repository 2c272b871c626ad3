"""``cron/output/<job id>/<YYYY-mm-dd_HH-MM-SS>.md``: the document each cron run leaves behind.

Hermes' ``save_job_output`` names the file after ``hermes_time.now()`` (Hermes' configured ``timezone``, else
the host's zone), written without an offset; ``**Run Time:**`` inside is the same clock. Three shapes:

- **framed** (newer writers): the header, then ``**Prompt Characters:** <n>`` and ``## Prompt`` with the
  prompt, a blank line, ``**Response Characters:** <m>`` and ``## Response`` with the response and a
  newline. The lengths frame the sections, so a heading quoted inside the prompt is no boundary, and a
  response whose length does not match its frame is a truncated write (Hermes' reader rejects it).
- **unframed** (older writers, hermes-agent 0.19): ``## Prompt`` and ``## Response`` headings only; the
  *last* ``## Response`` is the boundary, as Hermes' own reader takes it, since a prompt can quote the
  heading. A failed run of those writers has ``## Error`` where the response would be.
- **no prompt section**: a script-only (``no_agent``) run, a blocked or wake-gated run: the document is
  what there is.

The job id is the directory's name; the document's ``# Cron Job: <name>`` title is the job's name. A run
survives the prune or delete of its ``source = 'cron'`` session and names no session id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path

from hermes_trail.hermes.sidefiles.common import file_stray, local_to_utc, read_text
from hermes_trail.model import Stray

_NAME = re.compile(r"\A(\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2})\.md\Z")
_TITLE = re.compile(r"\A# Cron Job: (.*)$", re.MULTILINE)
_PROMPT_HEADING = "## Prompt\n\n"
_RESPONSE_HEADING = "## Response"
_ERROR_HEADING = "## Error"
_PROMPT_FRAME = re.compile(r"^\*\*Prompt Characters:\*\* (\d+)\n## Prompt\n\n", re.MULTILINE)
_RESPONSE_FRAME = re.compile(r"\*\*Response Characters:\*\* (\d+)\n## Response\n\n")
# The writer's blank line after the prompt, and its newline after the response.
_AFTER_PROMPT = "\n\n"
_AFTER_RESPONSE = "\n"


@dataclass(slots=True)
class CronRun:
    """One run's document.

    :param time: the file name's time as UTC (``None`` when the name is not Hermes' form).
    :param shape: ``framed``, ``unframed`` or ``output`` (no prompt section: ``document`` is all there is).
    :param rest: what follows the prompt when it is not a response (a failed run's ``## Error`` section).
    """

    path: Path
    job_id: str
    time: datetime | None
    name: str | None
    shape: str
    document: str
    prompt: str | None = None
    response: str | None = None
    rest: str | None = None
    problems: list[str] = field(default_factory=list)


def run_time(file_name: str, zone: tzinfo | None) -> datetime | None:
    """The UTC time of a run file's name, read in Hermes' clock zone."""
    match = _NAME.match(file_name)
    if match is None:
        return None
    try:
        moment = datetime.strptime(match.group(1), "%Y-%m-%d_%H-%M-%S")
    except ValueError:
        return None
    return local_to_utc(moment, zone)


def _framed(run: CronRun, text: str, frame: re.Match[str]) -> None:
    start = frame.end()
    length = int(frame.group(1))
    run.shape = "framed"
    run.prompt = text[start : start + length]
    after = start + length
    if text[after : after + len(_AFTER_PROMPT)] != _AFTER_PROMPT:
        run.problems.append("the prompt is shorter than its frame (a truncated write)")
        run.prompt = text[start:].rstrip("\n")
        return
    response = _RESPONSE_FRAME.match(text, after + len(_AFTER_PROMPT))
    if response is None:
        run.rest = text[after + len(_AFTER_PROMPT) :].strip() or None
        if run.rest is not None and not run.rest.startswith(_ERROR_HEADING):
            run.problems.append("no response frame after the prompt")
        return
    tail = text[response.end() :]
    wanted = int(response.group(1))
    if len(tail) != wanted + len(_AFTER_RESPONSE) or not tail.endswith(_AFTER_RESPONSE):
        run.problems.append(
            f"the response is {len(tail)} characters, not the {wanted} its frame says (a truncated write)"
        )
        run.response = tail.rstrip("\n")
        return
    run.response = tail[:wanted]


def _unframed(run: CronRun, text: str) -> None:
    start = text.find(_PROMPT_HEADING)
    body = text[start + len(_PROMPT_HEADING) :]
    run.shape = "unframed"
    cut = body.rfind(_RESPONSE_HEADING)
    if cut >= 0:
        run.prompt = body[:cut].strip()
        run.response = body[cut + len(_RESPONSE_HEADING) :].strip()
        return
    cut = body.rfind(_ERROR_HEADING)
    if cut >= 0:
        run.prompt = body[:cut].strip()
        run.rest = body[cut:].strip()
        return
    run.prompt = body.strip()
    run.problems.append("a prompt section with no response or error after it")


def read_cron_run(path: Path, job_id: str, zone: tzinfo | None = None) -> tuple[CronRun | None, list[Stray]]:
    """One run document, or the stray saying why it could not be read; a problem in a readable document
    (a frame that does not match) comes back as a stray beside the run."""
    text, problem = read_text(path)
    if text is None:
        return None, [problem] if problem else []
    title = _TITLE.search(text)
    run = CronRun(
        path=path,
        job_id=job_id,
        time=run_time(path.name, zone),
        name=title.group(1).strip() if title else None,
        shape="output",
        document=text,
    )
    frame = _PROMPT_FRAME.search(text)
    if frame is not None and text.find(_PROMPT_HEADING) == frame.end() - len(_PROMPT_HEADING):
        _framed(run, text, frame)
    elif _PROMPT_HEADING in text:
        _unframed(run, text)
    strays = [file_stray(path, f"cron run document: {p}") for p in run.problems]
    return run, strays
