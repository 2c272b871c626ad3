"""A session as JSON Lines of the model: one record per line, keys as ``trail show --json``
(``docs/json.md``), so a stream of many sessions can be read a record at a time.

``{"record": "session", "session": SessionDetail}`` opens each session, then one ``turn`` record per
replayed turn, one ``hidden`` record per row kept but not replayed, and one ``stray`` per row that could not
be read, each with the session's ``ref``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hermes_trail.export.view import Cleaner
from hermes_trail.model import Session
from hermes_trail.serialize import session_detail_json, stray_json, turn_json


def redacted(value: Any, clean: Cleaner) -> Any:
    """Every string in ``value`` redacted (and nothing else changed: the model's text stays as read)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {k: redacted(v, clean) for k, v in value.items()}
    if isinstance(value, list):
        if len(value) > 1 and all(isinstance(v, str) for v in value):
            return clean.lines(value)  # an edit's lines: a private key is found only across them
        return [redacted(v, clean) for v in value]
    return value


class _Redactor(Cleaner):
    """Redaction alone: JSON carries control characters and escapes faithfully, so nothing is stripped."""

    def __call__(self, text: str | None) -> str | None:
        if text is None or not self.redacting:
            return text
        from hermes_trail.redact import redact

        out = redact(text)
        self.changed = self.changed or out != text
        return out

    def shape(self, text: str) -> str:
        return text


def session_records(session: Session, *, redacting: bool = True) -> Iterator[dict[str, Any]]:
    """The session's records, in order."""
    clean = _Redactor(redacting=redacting)
    ref = session.ref
    yield {"record": "session", "session": redacted(session_detail_json(session), clean)}
    for turn in session.turns:
        yield {"record": "turn", "ref": ref, "turn": redacted(turn_json(turn), clean)}
    for turn in session.hidden:
        yield {"record": "hidden", "ref": ref, "turn": redacted(turn_json(turn), clean)}
    for stray in session.strays:
        yield {"record": "stray", "ref": ref, "stray": stray_json(stray)}


def session_lines(session: Session, *, redacting: bool = True) -> Iterator[str]:
    for record in session_records(session, redacting=redacting):
        yield json.dumps(record, ensure_ascii=False, separators=(",", ":"))
