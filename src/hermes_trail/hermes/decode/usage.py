"""Tokens, cost, per-model usage and model-switch markers, read as Hermes writes them.

Follows hermes-agent's accounting (``hermes_state.SessionDB``, ``agent.usage_pricing``, ``agent.insights``):

* **Counters.** ``SessionDB.update_token_counts`` adds each API call's input, output, cache-read,
  cache-write and reasoning tokens and its ``api_call_count`` into separate ``sessions`` columns (the
  gateway sets absolute totals instead); they are kept apart here, never summed into one figure.
* **Cost.** Each call is priced by ``estimate_usage_cost``, whose status is ``actual`` (a provider's own
  bill), ``estimated`` (a price list), ``included`` (a subscription route, priced at a literal $0) or
  ``unknown`` (no price: the amount is ``None`` and the column gains 0). ``estimated_cost_usd`` sums the
  estimates, ``actual_cost_usd`` the provider-reported amounts (``NULL`` until one is reported), and
  ``cost_status``/``cost_source`` hold the latest call's (``COALESCE(new, old)``). The rule read here
  (:func:`cost`): ``actual_cost_usd`` when positive, else ``estimated_cost_usd`` when positive, else
  unknown (``None``). A zero is reported as a real, known zero (``cost_kind = "zero"``) only when Hermes
  itself vouches for it: the status is ``actual`` and the provider reported ``actual_cost_usd = 0``, or
  the status is ``estimated`` and a price list priced the calls at ``estimated_cost_usd = 0`` (a free
  model). A zero under ``included``, ``unknown`` or no status is Hermes' placeholder, not a bill: a
  subscription's or an unpriced route's literal zero is never reported as $0. The status and source
  are kept as Hermes wrote them either way. Hermes keeps only the latest call's status, so a session
  whose earlier calls had no price and whose last call priced at zero reads as a known zero.
* **Per-model usage.** ``session_model_usage`` holds one row per (model, billing provider, base URL,
  billing mode, task), upserted with each call's delta by ``_record_model_usage``; ``task`` is empty for
  the main agent loop and names the work for auxiliary calls that ``record_auxiliary_usage`` writes
  without touching the ``sessions`` row (``title_generation``, ``compression``, ``vision``, ...). Its cost
  columns are ``NOT NULL DEFAULT 0``, so the same cost rule applies per row.
* **Model switches.** A live switch in the TUI gateway (``tui_gateway.server._append_model_switch_marker``)
  appends a ``role = 'user'`` row ``[System: The active model for this chat has changed to <model> via
  provider <provider>. From this point forward, ...]``; newer builds stamp it ``display_kind =
  'model_switch'`` and first set ``active = 0`` on the session's earlier markers
  (``deactivate_messages_by_display_kind``), keeping them. Every marker row, replayed or not, is one
  :class:`~hermes_trail.model.ModelChange`, and its turn gets ``kind = "model_switch"`` (never a typed
  prompt). Its ``rewound`` flag is cleared: the ``active = 0`` a later switch writes is no rewind, and
  even a real rewind past a marker does not undo the switch (``rewind_to_message`` leaves
  ``sessions.model`` on the new model). Hermes itself recognises markers by the text prefix alone
  (``_is_model_switch_marker``), so a ``user`` row with that prefix is a marker in stores without
  ``display_kind`` too. Other ``display_kind`` values (``hidden``, ``steer``, ``process_complete``, ...)
  are injected notices: the conversation reader copies them into ``Turn.kind``, which already keeps them
  from counting as typed prompts.
"""

from __future__ import annotations

import math
import re
from typing import Any

from hermes_trail.hermes.decode.values import epoch, integer, text
from hermes_trail.model import ModelChange, ModelUsage, Session, Turn, Usage

KIND_MODEL_SWITCH = "model_switch"
MARKER_PREFIX = "[System: The active model for this chat has changed to "
# The model runs to " via provider <provider>" (when a provider was set) and the sentence's full stop.
_MARKER = re.compile(
    re.escape(MARKER_PREFIX) + r"(?P<model>.+?)(?: via provider (?P<provider>.+?))?\.(?=\s|\]|$)", re.DOTALL
)
# Statuses under which a stored zero is Hermes' own answer rather than its placeholder.
_ZERO_IS_KNOWN = {"actual": "actual_cost_usd", "estimated": "estimated_cost_usd"}


def _money(value: Any) -> float | None:
    """A REAL cost cell as a finite float; ``None`` when absent or not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    amount = float(value)
    return amount if math.isfinite(amount) else None


def _label(value: Any) -> str | None:
    shown, _ = text(value, "")
    return shown if shown else None


def cost(row: dict[str, Any]) -> tuple[float | None, str | None]:
    """``(cost_usd, cost_kind)`` of a ``sessions`` or ``session_model_usage`` row, by the module's rule."""
    actual = _money(row.get("actual_cost_usd"))
    estimated = _money(row.get("estimated_cost_usd"))
    if actual is not None and actual > 0:
        return actual, "actual"
    if estimated is not None and estimated > 0:
        return estimated, "estimated"
    status = _label(row.get("cost_status"))
    column = _ZERO_IS_KNOWN.get(status or "")
    if column is not None and _money(row.get(column)) == 0:
        return 0.0, "zero"
    return None, None


def _usage(row: dict[str, Any]) -> Usage:
    cost_usd, cost_kind = cost(row)
    return Usage(
        input_tokens=integer(row.get("input_tokens")),
        output_tokens=integer(row.get("output_tokens")),
        cache_read_tokens=integer(row.get("cache_read_tokens")),
        cache_write_tokens=integer(row.get("cache_write_tokens")),
        reasoning_tokens=integer(row.get("reasoning_tokens")),
        api_calls=integer(row.get("api_call_count")),
        cost_usd=cost_usd,
        cost_kind=cost_kind,
        cost_status=_label(row.get("cost_status")),
        cost_source=_label(row.get("cost_source")),
    )


def session_usage(row: dict[str, Any]) -> Usage:
    """Token counters, API calls and cost from a ``sessions`` row."""
    return _usage(row)


def model_usage(rows: list[dict[str, Any]]) -> list[ModelUsage]:
    """A session's ``session_model_usage`` rows: the main loop's first, then the auxiliary tasks', each in
    the order the model was first used (``first_seen``; rows without one keep table order, last).

    A row without a model is Hermes' own ``unknown`` (what ``_record_model_usage`` writes when no model
    was passed); an empty ``billing_provider`` is ``None``.
    """
    out: list[ModelUsage] = []
    for row in rows:
        first, _ = epoch(row.get("first_seen"), "first_seen")
        last, _ = epoch(row.get("last_seen"), "last_seen")
        out.append(
            ModelUsage(
                model=_label(row.get("model")) or "unknown",
                provider=_label(row.get("billing_provider")),
                task=_label(row.get("task")) or "",
                usage=_usage(row),
                first_seen=first,
                last_seen=last,
            )
        )
    out.sort(key=_first_use)
    return out


def _first_use(usage: ModelUsage) -> tuple[bool, bool, float]:
    seen = usage.first_seen
    return (usage.auxiliary, seen is None, seen.timestamp() if seen is not None else 0.0)


def parse_marker(marker: str) -> tuple[str, str | None] | None:
    """``(model, provider)`` named by a model-switch marker's text, or ``None`` when it has another form."""
    match = _MARKER.match(marker.lstrip())
    if match is None:
        return None
    model = match.group("model").strip()
    provider = (match.group("provider") or "").strip() or None
    return (model, provider) if model else None


def is_marker(turn: Turn) -> bool:
    """Whether a turn is a model-switch marker: stamped so, or (unstamped) a ``user`` row in its form."""
    if turn.kind == KIND_MODEL_SWITCH:
        return True
    return turn.kind is None and turn.role == "user" and turn.text.lstrip().startswith(MARKER_PREFIX)


def apply_markers(session: Session) -> None:
    """Model-switch marker rows, in ``session.turns`` and ``session.hidden``, become ``model_changes`` in
    ``messages.id`` order; their turns get ``kind = "model_switch"`` and lose ``rewound`` (see the module
    docstring). A compaction copy of a marker is not a second switch; a marker whose text is not in
    Hermes' form keeps its kind and a problem, and names no change."""
    changes: list[ModelChange] = []
    seen: set[int] = set()
    for turn in sorted([*session.turns, *session.hidden], key=lambda t: (t.source_row, t.part)):
        if not is_marker(turn):
            continue
        turn.kind = KIND_MODEL_SWITCH
        turn.rewound = False
        parsed = parse_marker(turn.text)
        if parsed is None:
            turn.problems.append("model-switch marker text is not in Hermes' form; no model read from it")
            continue
        if turn.copy_of is not None and turn.copy_of in seen:
            continue
        seen.add(turn.source_row)
        model, provider = parsed
        changes.append(ModelChange(model, provider, turn.time, turn.source_row))
    session.model_changes = changes
