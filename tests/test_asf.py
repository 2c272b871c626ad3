"""The Agent Session Format export, read back by an independent reader of RFC 0001 (``asfcheck.py``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import asfcheck
import corpusgen
import webhome as w
from hermes_trail import open_history
from hermes_trail.export.asf import FORMAT, session_lines, session_uuid


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return w.write_home(tmp_path_factory.mktemp("asf") / "hermes")


def export(home: Path, session_id: str, **kw) -> tuple[asfcheck.Session, object]:
    with open_history(homes=[home], catalog=False) as history:
        session = history.load(history.find(session_id))
        history.family(session)
        text = "\n".join(session_lines(session, **kw)) + "\n"
    return asfcheck.read(text), session


def _texts(items: list[dict]) -> list[str]:
    out = []
    for item in items:
        if item["type"] == "message":
            out.append(" ".join(p.get("text", "") for p in item["content"]))
        elif item["type"] == "function_call":
            out.append(f"call {item['name']}")
        elif item["type"] == "function_call_output":
            out.append("output")
    return out


def test_header_has_the_required_fields(home):
    asf, session = export(home, w.CODING_ID)
    header = asf.header
    assert header["type"] == "session" and header["format"] == FORMAT == "agentsession/0.10"
    assert header["payload"].startswith("openresponses/") and header["created_at"] == "2026-11-02T10:00:00Z"
    assert header["id"] == session_uuid(session) and header["hermes"]["session_id"] == w.CODING_ID
    assert "records" not in header, "a converter makes no records promise"
    assert asf.entries[0]["type"] == "config" and asf.entries[0]["parent"] is None


def test_every_entry_verifies_and_the_context_is_what_hermes_replays(home):
    asf, _ = export(home, w.CODING_ID)
    context = asf.context()
    kinds = [i["type"] for i in context]
    pair = ["function_call", "function_call_output"]
    assert kinds == ["message", *pair, *pair, "message", *pair, *pair, "message"]
    calls = [i for i in context if i["type"] == "function_call"]
    assert [c["call_id"] for c in calls] == ["call_t1", "call_r1", "call_p1", "call_t2"]
    output = next(i for i in context if i["type"] == "function_call_output")
    assert json.loads(output["output"])["exit_code"] == 1
    durations = [
        e["hermes"].get("duration")
        for e in asf.entries
        if e.get("item", {}).get("type") == "function_call_output"
    ]
    assert durations == [10, 10, 10, 10]


def test_a_tampered_line_fails_to_verify(home):
    with open_history(homes=[home], catalog=False) as history:
        session = history.load(history.find(w.CODING_ID))
        lines = list(session_lines(session))
    at = next(i for i, line in enumerate(lines) if '"role":"user"' in line)
    entry = json.loads(lines[at])
    entry["item"]["content"][0]["text"] = "something else"
    lines[at] = json.dumps(entry)
    with pytest.raises(asfcheck.Invalid, match="id does not verify"):
        asfcheck.read("\n".join(lines))


def test_a_denied_command_is_a_reject_decision(home):
    asf, _ = export(home, w.DENIED_ID)
    decision = next(e for e in asf.entries if e["type"] == "decision")
    assert decision["verdict"] == "reject" and decision["by"] == "human"
    assert "User denied" in decision["reason"] and decision["call_id"] == "call_d1"
    # the output still follows: it is what the model saw
    assert asf.entries[asf.entries.index(decision) + 1]["item"]["type"] == "function_call_output"


def test_a_rewind_is_a_branch_and_the_leaf_is_the_live_one(home):
    asf, _ = export(home, w.REWIND_ID)
    live = _texts(asf.context())
    assert live == ["Pick a number.", "Seven.", "Triple it instead.", "Twenty-one."]
    rewound = [e for e in asf.entries if e.get("hermes", {}).get("rewound")]
    assert [e["item"]["content"][0]["text"] for e in rewound] == ["Double it.", "Fourteen."]
    seven = next(e for e in asf.entries if e.get("item", {}).get("content", [{}])[0].get("text") == "Seven.")
    assert rewound[0]["parent"] == seven["id"], "the rewound branch hangs off the entry before it"
    triple = next(
        e
        for e in asf.entries
        if e.get("item", {}).get("content", [{}])[0].get("text") == "Triple it instead."
    )
    assert triple["parent"] == seven["id"]


def test_lineage_is_parent_session_links(home):
    parent, _ = export(home, w.PARENT_ID)
    child, _ = export(home, w.CHILD_ID)
    assert child.header["parent_session"] == parent.header["id"]
    link = next(e for e in parent.entries if e["type"] == "link")
    assert link["rel"] == "continued_in" and link["session"] == child.header["id"]
    assert link["hermes"] == {"session_id": w.CHILD_ID, "relation": "continuation"}


def test_a_model_switch_is_a_config_delta(home):
    child, _ = export(home, w.CHILD_ID)
    configs = [e for e in child.entries if e["type"] == "config"]
    assert configs[0]["model"] == "anthropic/claude-sonnet-4"
    assert configs[1]["model"] == "big-model" and configs[1]["hermes"]["provider"] == "acme"


def test_secrets_are_redacted_unless_asked(home):
    asf, _ = export(home, w.HOSTILE_ID)
    text = json.dumps(asf.entries)
    assert w.SECRET not in text and "[REDACTED:" in text and asf.header["redacted"] is True
    raw, _ = export(home, w.HOSTILE_ID, redacting=False)
    assert w.SECRET in json.dumps(raw.entries) and "redacted" not in raw.header
    # the output keeps its escape sequences: the format carries what the model was sent
    output = next(
        e["item"]["output"] for e in raw.entries if e.get("item", {}).get("type") == "function_call_output"
    )
    assert "\\u001b[31m" in output
    reasoning = next(e["item"] for e in raw.entries if e.get("item", {}).get("type") == "reasoning")
    assert reasoning["content"][0]["text"].startswith("I will run the deploy script")


@pytest.mark.corpus
@pytest.mark.parametrize("version", ["corpus-v22", "corpus-v31"])
def test_every_corpus_session_converts_to_a_valid_file(corpus_dir, version):
    home = corpus_dir / version / "hermes_home"
    with open_history(homes=[home]) as listing:
        refs = [s.ref for s in listing.sessions]
    assert len(refs) >= 22
    for ref in refs:
        with open_history(homes=[home], catalog=False) as history:
            session = history.load(history.find(ref))
            history.family(session)
            asf = asfcheck.read("\n".join(session_lines(session)) + "\n")
        replayed = [t for t in session.turns if t.role in ("user", "assistant") and t.kind is None and t.text]
        context_text = " ".join(_texts(asf.context()))
        for turn in replayed:
            assert turn.text in context_text or "[REDACTED:" in context_text, (ref, turn.source_row)


@pytest.mark.corpus
@pytest.mark.parametrize("version", ["corpus-v22", "corpus-v31"])
def test_in_place_compaction_writes_each_row_once(corpus_dir, version):
    home = corpus_dir / version / "hermes_home"
    (session_id,) = corpusgen.session_ids(corpus_dir / version, "compaction_in_place")
    asf, session = export(home, session_id)
    fold = next(e for e in asf.entries if e["type"] == "compaction")
    assert fold["summary"]["content"][0]["text"].startswith("[CONTEXT COMPACTION")
    assert len(fold["pinned"]) == 3, "Hermes' protected head: the first prompt, its call and output"
    kept = asf.by_id[fold["first_kept"]]
    assert kept["hermes"]["row"] == 49 and kept["hermes"]["compacted"] is True
    assert not any("copy_of" in e.get("hermes", {}) for e in asf.entries), "copies are their originals"
    # the rebuilt context: the summary, then every row Hermes replays after it, in Hermes' order
    replay = [t for t in session.turns if t.role != "summary"]
    context = asf.context()
    assert context[0] == fold["summary"] and len(context) - 1 == sum(
        (bool(t.text) or not t.tool_calls) + len(t.tool_calls) if t.role == "assistant" else 1 for t in replay
    )
    assert _texts(context)[-2:] == [
        "Remind me what we did before the compaction.",
        "We ran echo (exit 0) and ls on a missing directory (exit 2).",
    ]
