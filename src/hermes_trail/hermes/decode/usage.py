"""Tokens, cost, per-model usage and model switches (issue 3; stub)."""

from __future__ import annotations

from typing import Any

from hermes_trail.hermes.decode.values import integer
from hermes_trail.model import ModelUsage, Session, Usage


def session_usage(row: dict[str, Any]) -> Usage:
    """Token counters and cost from a ``sessions`` row."""
    return Usage(
        input_tokens=integer(row.get("input_tokens")),
        output_tokens=integer(row.get("output_tokens")),
        cache_read_tokens=integer(row.get("cache_read_tokens")),
        cache_write_tokens=integer(row.get("cache_write_tokens")),
        reasoning_tokens=integer(row.get("reasoning_tokens")),
    )


def model_usage(rows: list[dict[str, Any]]) -> list[ModelUsage]:
    """A session's ``session_model_usage`` rows."""
    return []


def apply_markers(session: Session) -> None:
    """Model-switch marker rows become ``model_changes``; other ``display_kind`` rows are notices."""
