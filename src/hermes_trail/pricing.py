"""Prices for sessions Hermes recorded no cost for, from Hermes' own pricing table: an estimate by trail.

Hermes prices a call as it makes it (``agent/usage_pricing.py``: a provider's cost API, its models API,
or a snapshot of the official price lists). When none of them answered, the session's cost is unknown,
and stays so in everything trail shows, unless asked for an estimate (``trail stats --estimate``). Then
the tokens Hermes recorded are priced with the rates of that snapshot (``_OFFICIAL_DOCS_PRICING``, looked
up by Hermes' own ``resolve_billing_route`` for the session's model and billing provider), never with a
network lookup; a kind of token with no rate leaves the estimate unknown, as Hermes does. An estimate is
always kept apart from Hermes' own figures and labelled "estimated by trail".

The table is read from Hermes' code where it is: imported when trail runs in Hermes' Python, else asked of
the Python the ``hermes`` command runs (one subprocess for every model asked about).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from hermes_trail.model import Usage

LABEL = "estimated by trail"

# Run in Hermes' Python: for each [model, provider] read on stdin, the rates of Hermes' price snapshot.
_LOOKUP = r"""
import json, sys
try:
    from agent.usage_pricing import _lookup_official_docs_pricing, resolve_billing_route
except Exception:
    print("null")
    raise SystemExit(0)
out = []
for model, provider in json.load(sys.stdin):
    try:
        route = resolve_billing_route(model, provider=provider)
        included = route.billing_mode == "subscription_included"
        entry = None if included else _lookup_official_docs_pricing(route)
    except Exception:
        entry = None
    if entry is None:
        out.append(None)
        continue
    rate = lambda v: None if v is None else float(v)
    out.append({"input": rate(entry.input_cost_per_million), "output": rate(entry.output_cost_per_million),
                "cache_read": rate(entry.cache_read_cost_per_million),
                "cache_write": rate(entry.cache_write_cost_per_million), "request": rate(entry.request_cost),
                "version": entry.pricing_version})
print(json.dumps(out))
"""


@dataclass(frozen=True, slots=True)
class Rates:
    """USD per million tokens of each kind (``None``: the table has no rate for it), and per request."""

    input: float | None = None
    output: float | None = None
    cache_read: float | None = None
    cache_write: float | None = None
    request: float | None = None
    version: str | None = None


def estimate(usage: Usage, rates: Rates | None) -> float | None:
    """What ``usage`` costs at ``rates``; ``None`` when a kind of token it has has no rate (or no rates)."""
    if rates is None:
        return None
    amount = 0.0
    for count, rate in (
        (usage.input_tokens, rates.input),
        (usage.output_tokens, rates.output),
        (usage.cache_read_tokens, rates.cache_read),
        (usage.cache_write_tokens, rates.cache_write),
    ):
        if not count:
            continue
        if rate is None:
            return None
        amount += count * rate / 1_000_000
    if rates.request is not None and usage.api_calls:
        amount += usage.api_calls * rates.request
    return amount


def _hermes_python(env: Mapping[str, str] | None) -> str | None:
    """The Python that has Hermes' code: this one when it imports, else the ``hermes`` command's."""
    import importlib.util

    try:
        if importlib.util.find_spec("agent.usage_pricing") is not None:
            return sys.executable
    except (ImportError, ValueError):
        pass
    from hermes_trail.integrations.hermes.install import find_hermes

    return find_hermes(env, ask=False).python


def hermes_rates(
    pairs: Iterable[tuple[str, str | None]], env: Mapping[str, str] | None = None
) -> dict[tuple[str, str | None], Rates | None] | None:
    """Hermes' snapshot rates for each (model, billing provider); ``None`` when no Hermes is found."""
    asked = sorted(set(pairs), key=lambda p: (p[0], p[1] or ""))
    if not asked:
        return {}
    python = _hermes_python(env)
    if python is None:
        return None
    try:
        done = subprocess.run(
            [python, "-c", _LOOKUP],
            input=json.dumps(asked),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        answer = json.loads(done.stdout or "null")
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not isinstance(answer, list) or len(answer) != len(asked):
        return None
    return {
        pair: (Rates(**found) if isinstance(found, dict) else None)
        for pair, found in zip(asked, answer, strict=True)
    }
