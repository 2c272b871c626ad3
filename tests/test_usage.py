"""Tokens, cost, per-model usage and model switches, from stores Hermes' own code wrote.

Costs are priced by Hermes' ``estimate_usage_cost`` and recorded with ``SessionDB.update_token_counts`` the
way its agent loop records each API call; auxiliary usage goes through ``record_auxiliary_usage``; model
switch markers through the TUI gateway's own ``_append_model_switch_marker``. Two shapes hermes-agent
0.19.0 cannot write (it has no ``display_kind`` column) are made by SQL on top, each saying why.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import hermesdb
from hermes_trail import open_history
from hermes_trail.hermes.decode import usage as usage_rules
from hermes_trail.model import Session, Store, Turn

hermes_state = pytest.importorskip("hermes_state")

SID = "20261102_090000_aa11bb"


@pytest.fixture
def db_path(hermes_sandbox: Path) -> Path:
    return hermes_sandbox / "state.db"


def _db(path: Path) -> Any:
    return hermes_state.SessionDB(db_path=path)


def _load(path: Path, session_id: str = SID) -> Session:
    with open_history(dbs=[path]) as history:
        return history.load(history.find(session_id))


def _record_call(db: Any, session_id: str, model: str, provider: str, **tokens: int) -> None:
    """One main-loop API call: priced by Hermes, recorded as its agent loop records it."""
    from agent.usage_pricing import CanonicalUsage, estimate_usage_cost

    canonical = CanonicalUsage(**tokens)
    priced = estimate_usage_cost(model, canonical, provider=provider)
    db.update_token_counts(
        session_id,
        input_tokens=canonical.input_tokens,
        output_tokens=canonical.output_tokens,
        cache_read_tokens=canonical.cache_read_tokens,
        cache_write_tokens=canonical.cache_write_tokens,
        reasoning_tokens=canonical.reasoning_tokens,
        estimated_cost_usd=None if priced.amount_usd is None else float(priced.amount_usd),
        cost_status=priced.status,
        cost_source=priced.source,
        billing_provider=provider,
        billing_mode="subscription_included" if priced.status == "included" else None,
        model=model,
        api_call_count=1,
    )


TOKENS = {"input_tokens": 1000, "output_tokens": 120, "cache_read_tokens": 300, "cache_write_tokens": 40}
# What a route without cache-write pricing (gpt-4.1-mini in Hermes' docs snapshot) can price.
PRICEABLE = {"input_tokens": 1000, "output_tokens": 120, "cache_read_tokens": 300}


# -- tokens and cost -------------------------------------------------------------------------------------
def test_tokens_by_kind_are_kept_apart_and_api_calls_counted(db_path):
    db = _db(db_path)
    db.create_session(SID, "cli", model="gpt-4.1-mini")
    for _ in range(2):
        db.update_token_counts(
            SID,
            input_tokens=1000,
            output_tokens=200,
            cache_read_tokens=300,
            cache_write_tokens=40,
            reasoning_tokens=50,
            model="gpt-4.1-mini",
            api_call_count=1,
        )
    db.close()
    u = _load(db_path).usage
    kinds = (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, u.reasoning_tokens)
    assert kinds == (2000, 400, 600, 80, 100)
    assert u.api_calls == 2


@pytest.mark.parametrize(
    ("model", "provider", "status", "kind"),
    [
        ("gpt-4.1-mini", "openai", "estimated", "estimated"),  # priced from Hermes' docs snapshot
        ("gpt-5-codex", "openai-codex", "included", None),  # a subscription route: a literal $0
        ("claude-sonnet-4", "anthropic", "unknown", None),  # no price: Hermes stores 0
    ],
)
def test_cost_of_calls_hermes_priced(db_path, model, provider, status, kind):
    db = _db(db_path)
    db.create_session(SID, "cli", model=model)
    _record_call(db, SID, model, provider, **PRICEABLE)
    _record_call(db, SID, model, provider, **PRICEABLE)
    db.close()
    session = _load(db_path)
    stored = session.raw
    assert session.usage.cost_status == status
    assert session.usage.cost_kind == kind
    if kind == "estimated":
        assert stored["estimated_cost_usd"] > 0
        assert session.usage.cost_usd == pytest.approx(stored["estimated_cost_usd"])
    else:
        assert stored["estimated_cost_usd"] == 0  # Hermes' zero is there, and is not reported as $0
        assert session.usage.cost_usd is None
    # The per-model row of the same calls reads by the same rule.
    [main] = session.model_usage
    assert (main.usage.cost_kind, main.usage.cost_status) == (kind, status)


@pytest.mark.parametrize(
    ("estimated", "actual", "status", "source", "expected"),
    [
        (0.0125, 0.0131, "actual", "provider_cost_api", (0.0131, "actual")),
        (0.0042, None, "estimated", "official_docs_snapshot", (0.0042, "estimated")),
        (0.0, 0.0, "included", "subscription", (None, None)),
        (None, None, "unknown", "none", (None, None)),
        (None, None, None, None, (None, None)),
        # A provider that bills the call at $0 (a free route) is a known zero ...
        (0.0, 0.0, "actual", "provider_cost_api", (0.0, "zero")),
        # ... and so is a price list that prices the model at $0.
        (0.0, None, "estimated", "provider_models_api", (0.0, "zero")),
        # A provider's zero does not hide a positive estimate.
        (0.003, 0.0, "actual", "provider_cost_api", (0.003, "estimated")),
    ],
)
def test_cost_rule(db_path, estimated, actual, status, source, expected):
    db = _db(db_path)
    db.create_session(SID, "cli", model="m")
    db.update_token_counts(
        SID,
        model="m",
        estimated_cost_usd=estimated,
        actual_cost_usd=actual,
        cost_status=status,
        cost_source=source,
        billing_provider="openrouter",
        api_call_count=1,
        **TOKENS,
    )
    db.close()
    session = _load(db_path)
    cost_usd, kind = expected
    assert session.usage.cost_kind == kind
    assert session.usage.cost_usd == (None if cost_usd is None else pytest.approx(cost_usd))
    assert (session.usage.cost_status, session.usage.cost_source) == (status, source)


def test_a_session_with_no_calls_has_no_cost(db_path):
    db = _db(db_path)
    db.create_session(SID, "cli", model="m")
    db.close()
    u = _load(db_path).usage
    assert (u.cost_usd, u.cost_kind, u.api_calls, u.input_tokens) == (None, None, 0, 0)


# -- per-model usage ----------------------------------------------------------------------------------------
def test_auxiliary_usage_is_apart_from_the_main_loop(db_path):
    db = _db(db_path)
    db.create_session(SID, "cli", model="gpt-4.1-mini")
    # The title is generated first, on another model; the main loop's call comes after.
    db.record_auxiliary_usage(
        SID,
        "title_generation",
        model="aux-mini",
        billing_provider="openrouter",
        input_tokens=210,
        output_tokens=12,
        estimated_cost_usd=3e-05,
    )
    _record_call(db, SID, "gpt-4.1-mini", "openai", **PRICEABLE)
    db.close()
    session = _load(db_path)
    main, aux = session.model_usage
    assert (main.model, main.provider, main.task, main.auxiliary) == ("gpt-4.1-mini", "openai", "", False)
    assert (aux.model, aux.provider, aux.auxiliary) == ("aux-mini", "openrouter", True)
    assert aux.task == "title_generation"
    a = aux.usage
    assert (a.input_tokens, a.output_tokens, a.api_calls) == (210, 12, 1)
    assert (a.cost_usd, a.cost_kind, a.cost_status) == (pytest.approx(3e-05), "estimated", None)
    assert aux.first_seen is not None and main.first_seen is not None and aux.first_seen <= main.first_seen
    # record_auxiliary_usage leaves the session row alone: its tokens are the main loop's only.
    assert session.usage.input_tokens == 1000 and session.usage.api_calls == 1


# -- model switches -----------------------------------------------------------------------------------------
@pytest.fixture
def switch_marker(hermes_sandbox):
    """The TUI gateway's own marker writer, bound to a SessionDB."""
    server = pytest.importorskip("tui_gateway.server")

    def write(db: Any, session_id: str, model: str, provider: str) -> None:
        live = {"session_key": session_id, "agent": SimpleNamespace(_session_db=db)}
        server._append_model_switch_marker(live, model=model, provider=provider)

    return write


def _switched_store(path: Path, switch_marker, switches: list[tuple[str, str]]) -> None:
    db = _db(path)
    db.create_session(SID, "tui", model="model-a")
    db.append_message(SID, "user", "Which model are you?")
    db.update_token_counts(SID, model="model-a", billing_provider="custom", api_call_count=1, **TOKENS)
    db.append_message(SID, "assistant", "I am model-a.")
    for model, provider in switches:
        switch_marker(db, SID, model, provider)
        db.update_session_model(SID, model)
        db.append_message(SID, "user", "And now?")
        route = provider or "custom"
        db.update_token_counts(SID, model=model, billing_provider=route, api_call_count=1, **TOKENS)
        db.append_message(SID, "assistant", f"Now I am {model}.")
    db.close()


def test_a_switch_marker_is_a_model_change_and_no_prompt(db_path, switch_marker):
    _switched_store(db_path, switch_marker, [("model-b", "openrouter")])
    session = _load(db_path)
    [change] = session.model_changes
    marker = next(t for t in session.turns if t.source_row == change.source_row)
    assert (change.model, change.provider) == ("model-b", "openrouter")
    assert change.time == marker.time and change.time is not None
    assert marker.kind == "model_switch" and marker.role == "user" and not marker.typed
    assert [t.text for t in session.turns if t.typed] == ["Which model are you?", "And now?"]
    assert [(m.model, m.task) for m in session.model_usage] == [("model-a", ""), ("model-b", "")]


def test_every_switch_counts_and_a_provider_is_optional(db_path, switch_marker):
    switches = [("gpt-5.6-sol", ""), ("claude-sonnet-4.5", "anthropic"), ("model-a", "custom")]
    _switched_store(db_path, switch_marker, switches)
    session = _load(db_path)
    assert [(c.model, c.provider) for c in session.model_changes] == [
        ("gpt-5.6-sol", None),
        ("claude-sonnet-4.5", "anthropic"),
        ("model-a", "custom"),
    ]
    rows = [c.source_row for c in session.model_changes]
    assert rows == sorted(rows)


def _stamp_display_kind(path: Path, marker_rows: list[int]) -> None:
    """The newer writer's shape, which hermes-agent 0.19.0 cannot write (no ``display_kind`` column):
    markers stamped ``display_kind = 'model_switch'``, each earlier one set ``active = 0`` by the next
    switch (``deactivate_messages_by_display_kind``)."""
    hermesdb.sql(path, "ALTER TABLE messages ADD COLUMN display_kind TEXT")
    for row in marker_rows:
        hermesdb.sql(path, "UPDATE messages SET display_kind = 'model_switch' WHERE id = ?", (row,))
    for row in marker_rows[:-1]:
        hermesdb.sql(path, "UPDATE messages SET active = 0 WHERE id = ?", (row,))


def test_deactivated_earlier_markers_are_still_switches_not_rewinds(db_path, switch_marker):
    _switched_store(db_path, switch_marker, [("model-b", "openrouter"), ("model-c", "nous")])
    before = _load(db_path)
    rows = [c.source_row for c in before.model_changes]
    _stamp_display_kind(db_path, rows)
    session = _load(db_path)
    assert [(c.model, c.provider, c.source_row) for c in session.model_changes] == [
        ("model-b", "openrouter", rows[0]),
        ("model-c", "nous", rows[1]),
    ]
    [old] = [t for t in session.hidden if t.source_row == rows[0]]
    assert old.kind == "model_switch" and not old.rewound and not old.typed
    assert [t.source_row for t in session.turns if t.kind == "model_switch"] == [rows[1]]


def test_a_marker_a_rewind_passed_is_still_a_switch(db_path, switch_marker):
    """``rewind_to_message`` does not undo a switch (``sessions.model`` keeps the new model)."""
    _switched_store(db_path, switch_marker, [("model-b", "openrouter")])
    db = _db(db_path)
    marker_row = hermesdb.message_ids(db_path, SID)[2]
    db.rewind_to_message(SID, marker_row)
    db.close()
    session = _load(db_path)
    [change] = session.model_changes
    assert change.source_row == marker_row
    marker = next(t for t in session.hidden if t.source_row == marker_row)
    assert marker.kind == "model_switch" and not marker.rewound
    # The prompt the same rewind passed is still a rewound prompt.
    assert [t.rewound for t in session.hidden if t.typed] == [True]


def test_notices_and_odd_markers_are_not_prompts(db_path):
    db = _db(db_path)
    db.create_session(SID, "tui", model="m")
    quoted = f"Explain '{usage_rules.MARKER_PREFIX}x.]'"
    typed = db.append_message(SID, "user", quoted)
    notice = db.append_message(SID, "user", "[Background process proc_1 finished with exit code 0]")
    odd = db.append_message(SID, "user", "Model is now m2.")
    db.close()
    # hermes-agent 0.19.0 has no display_kind column; newer builds stamp these rows (see the docstring).
    _stamp = "UPDATE messages SET display_kind = ? WHERE id = ?"
    hermesdb.sql(db_path, "ALTER TABLE messages ADD COLUMN display_kind TEXT")
    hermesdb.sql(db_path, _stamp, ("process_complete", notice))
    hermesdb.sql(db_path, _stamp, ("model_switch", odd))
    session = _load(db_path)
    by_row = {t.source_row: t for t in session.turns}
    assert by_row[typed].typed and by_row[typed].kind is None
    assert by_row[notice].kind == "process_complete" and not by_row[notice].typed
    assert by_row[odd].kind == "model_switch" and not by_row[odd].typed
    assert any("marker" in p for p in by_row[odd].problems)
    assert session.model_changes == []


def test_marker_text_parsing():
    parse, prefix = usage_rules.parse_marker, usage_rules.MARKER_PREFIX
    tail = ". From this point forward, use this runtime metadata when answering questions.]"
    assert parse(prefix + "a.b-1.5 via provider open.router" + tail) == ("a.b-1.5", "open.router")
    assert parse(prefix + "vendor/model-2.0" + tail) == ("vendor/model-2.0", None)
    assert parse(prefix + "m via provider p.]") == ("m", "p")
    assert parse("[System: something else.]") is None


def test_a_compaction_copy_of_a_marker_is_not_a_second_switch():
    """Built by hand: ``copy_of`` is set by the compaction rules, on the copy an in-place compaction writes
    of an archived row; the archived original stays ``compacted``."""
    store = Store(key="k", name="k", path="k", profile="default", home=None, schema_version=None)
    text = usage_rules.MARKER_PREFIX + "model-b via provider nous. From this point forward, ...]"

    def turn(row: int, copy_of: int | None = None) -> Turn:
        return Turn(
            role="user", text=text, source_row=row, time=None, store="k", session_id=SID, copy_of=copy_of
        )

    original, copy = turn(3), turn(9, copy_of=3)
    original.compacted = True
    session = Session(
        id=SID,
        store=store,
        source="tui",
        title=None,
        model="m",
        cwd=None,
        git_branch=None,
        git_repo_root=None,
        profile="default",
        project="hermes",
        started_at=None,
        ended_at=None,
        last_activity_at=None,
        end_reason=None,
        parent_id=None,
        message_count=None,
        turns=[copy],
        hidden=[original],
    )
    usage_rules.apply_markers(session)
    assert [(c.model, c.provider, c.source_row) for c in session.model_changes] == [("model-b", "nous", 3)]
    assert copy.kind == original.kind == "model_switch"
    assert original.compacted and not original.rewound


# -- the corpus (corpusgen.py) -------------------------------------------------------------------------------
def _scenario(corpus: Path, name: str) -> list[str]:
    manifest = json.loads((corpus / "manifest.json").read_text())
    [ids] = [s["session_ids"] for s in manifest["scenarios"] if s["scenario"] == name]
    return list(ids)


def _expect(corpus: Path) -> dict[str, Any]:
    return json.loads((corpus / "expect" / "state.db.json").read_text())["sessions"]


COUNTERS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")


@pytest.mark.corpus
@pytest.mark.parametrize("version", ["corpus-v22", "corpus-v31"])
def test_corpus_costs(corpus_dir, version):
    corpus = corpus_dir / version
    expect = _expect(corpus)
    kinds = {}
    with open_history(dbs=[corpus / "hermes_home" / "state.db"]) as history:
        for sid in _scenario(corpus, "costs"):
            session = history.load(history.find(sid))
            row = expect[sid]["get_session"]
            u = session.usage
            assert [getattr(u, c) for c in COUNTERS] == [row[c] for c in COUNTERS]
            assert u.api_calls == row["api_call_count"]
            assert (u.cost_status, u.cost_source) == (row["cost_status"], row["cost_source"])
            kinds[row["cost_status"]] = (u.cost_usd, u.cost_kind)
            rows = expect[sid]["session_model_usage_rows"]
            assert len(session.model_usage) == len(rows)
            got = [(m.model, m.task, m.usage.input_tokens, m.usage.api_calls) for m in session.model_usage]
            want = [(r["model"], r["task"], r["input_tokens"], r["api_call_count"]) for r in rows]
            assert sorted(got) == sorted(want)
            seen_aux = False
            for m in session.model_usage:
                assert m.auxiliary == bool(m.task)
                seen_aux = seen_aux or m.auxiliary
                assert not (seen_aux and not m.auxiliary), "main-loop rows come before auxiliary ones"
            aux = ("title_generation", "oracle-aux-mini")
            [title] = [m for m in session.model_usage if (m.task, m.model) == aux]
            assert (title.usage.cost_usd, title.usage.cost_kind) == (pytest.approx(3e-05), "estimated")
    assert kinds == {
        "actual": (pytest.approx(0.0131), "actual"),
        "estimated": (pytest.approx(0.0042), "estimated"),
        "included": (None, None),
    }


@pytest.mark.corpus
@pytest.mark.parametrize("version", ["corpus-v22", "corpus-v31"])
def test_corpus_model_switch(corpus_dir, version):
    corpus = corpus_dir / version
    [sid] = _scenario(corpus, "model_switch")
    rows = _expect(corpus)[sid]["get_messages_all_rows"]
    [marker_row] = [r for r in rows if str(r["content"]).startswith(usage_rules.MARKER_PREFIX)]
    with open_history(dbs=[corpus / "hermes_home" / "state.db"]) as history:
        session = history.load(history.find(sid))
    [change] = session.model_changes
    assert (change.model, change.provider) == ("oracle-model-large", "custom")
    assert change.source_row == int(marker_row["id"])
    assert change.time is not None
    assert change.time.timestamp() == pytest.approx(float(marker_row["timestamp"]))
    marker = next(t for t in session.turns if t.source_row == change.source_row)
    assert marker.kind == "model_switch" and not marker.typed
    assert [t.text for t in session.turns if t.typed] == ["Which model are you?", "And now?"]
    assert session.usage.cost_usd is None and session.usage.cost_status == "unknown"
    main = [m.model for m in session.model_usage if not m.auxiliary]
    assert main == ["oracle-model", "oracle-model-large"]
