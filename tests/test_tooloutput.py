"""What a tool result keeps as its output, on results Hermes' own tools returned and Hermes stored.

Sources, in order of preference: the corpus (rows Hermes' agent loop wrote), results returned by
Hermes' tools called in this process (``search_files``, ``read_file``, ``write_file``, ``tool_error``, the
loop guardrail's appended note, the result-size budget's truncation), and hand-built strings only where
Hermes cannot be made to produce the shape here (each says why).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import hermesdb
from hermes_trail import open_history
from hermes_trail.hermes.decode.tooloutput import kept_output
from hermes_trail.model import ToolResult


# -- the corpus ----------------------------------------------------------------------------------------
def _scenario_results(corpus_dir: Path, version: str, scenario: str) -> list[ToolResult]:
    root = corpus_dir / f"corpus-{version}"
    manifest = json.loads((root / "manifest.json").read_text())
    ids = next(s["session_ids"] for s in manifest["scenarios"] if s["scenario"] == scenario)
    with open_history(dbs=[root / "hermes_home" / "state.db"]) as history:
        sessions = [history.load(history.find(i)) for i in ids]
    return [t.result for s in sessions for t in s.turns if t.result is not None]


def _by_tool(results: list[ToolResult], name: str) -> list[ToolResult]:
    return [r for r in results if r.tool_name == name]


@pytest.mark.parametrize("version", ["v22", "v31"])
def test_corpus_file_tools_keep_content_diff_or_error(corpus_dir, version):
    results = _scenario_results(corpus_dir, version, "file_tools")
    found, missing = _by_tool(results, "read_file")
    # read_file: the line-numbered content; for a missing file the content is "" and the error is kept.
    assert found.output == found.data["content"] and found.output.startswith("1|def greet(name):")
    assert missing.data["content"] == "" and missing.output == missing.data["error"]
    assert missing.output.startswith("File not found:")
    for patch in _by_tool(results, "patch"):
        data = patch.data
        assert patch.output == (data.get("diff") or data["error"])
        # v31's failed replace carries a "_warning" side note: never kept.
        for key, value in data.items():
            if key.startswith("_"):
                assert value not in patch.output


@pytest.mark.parametrize("version", ["v22", "v31"])
def test_corpus_write_file_keeps_its_strings_not_its_byte_count(corpus_dir, version):
    (result,) = _by_tool(_scenario_results(corpus_dir, version, "file_tools"), "write_file")
    data = result.data
    assert data["bytes_written"] == 41
    path = data["resolved_path"]
    # No output key: every string once (the path is both resolved_path and files_modified), no count.
    assert result.output.split("\n") == [data["lint"]["status"], path]
    # The count nowhere but where the random temporary folder's name happens to hold the digits.
    assert "41" not in result.output.replace(path, "")


@pytest.mark.parametrize("version", ["v22", "v31"])
def test_corpus_delegate_task_keeps_every_string(corpus_dir, version):
    (result,) = _by_tool(_scenario_results(corpus_dir, version, "delegate_subagent"), "delegate_task")
    data = result.data
    assert data["status"] == "dispatched" and isinstance(data["count"], int)
    lines = result.output.split("\n")
    assert lines[:3] == ["dispatched", "background", data["delegation_id"]]
    assert data["goals"][0] in lines and data["note"] in result.output
    assert str(data["count"]) not in lines


@pytest.mark.parametrize("version", ["v22", "v31"])
def test_corpus_appended_loop_warning_is_not_output(corpus_dir, version):
    results = _by_tool(_scenario_results(corpus_dir, version, "terminal_exit_codes"), "terminal")
    warned = [r for r in results if "[Tool loop warning:" in r.text]
    assert len(warned) == 2
    for result in warned:
        assert isinstance(result.data, dict) and "exit_code" in result.data
        assert "Tool loop warning" not in result.output
        assert result.output == (result.data["output"] or result.data["error"])


# -- results of Hermes' own tools ----------------------------------------------------------------------
@pytest.fixture
def workspace(hermes_sandbox, tmp_path, monkeypatch) -> Path:
    pytest.importorskip("tools.file_tools")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("TERMINAL_CWD", str(work))
    monkeypatch.chdir(work)
    return work


def test_search_files_modes(workspace):
    from tools.file_tools import search_tool

    for i in range(6):
        (workspace / f"f{i}.txt").write_text(f"needle line {i}\n")
    dense = search_tool("needle", target="content", path=str(workspace))
    few = search_tool("needle", target="content", path=str(workspace / "f1.txt"))
    files = search_tool("*.txt", target="files", path=str(workspace))

    text, data = kept_output(dense)
    assert "matches_text" in data and text == data["matches_text"]
    # Fewer matches come as a list of objects: no output key, so every string (paths and lines).
    text, data = kept_output(few)
    assert "matches" in data and text.split("\n") == [str(workspace / "f1.txt"), "needle line 1"]
    # Files mode: every path, and not the count.
    text, data = kept_output(files)
    assert sorted(text.split("\n")) == sorted(data["files"]) and len(data["files"]) == 6
    assert str(data["total_count"]) not in text.split("\n")


def test_read_and_write_file(workspace):
    from tools.file_tools import read_file_tool, write_file_tool

    path = workspace / "new.py"
    text, data = kept_output(write_file_tool(str(path), "x = 1\n"))
    assert data["bytes_written"] == 6 and text.split("\n") == ["ok", str(path)]
    text, data = kept_output(read_file_tool(str(path)))
    assert text == data["content"] == "1|x = 1\n2|"
    text, data = kept_output(read_file_tool(str(workspace / "missing.txt")))
    assert text == data["error"] and "missing.txt" in text


def test_tool_error_and_guardrail_results():
    registry = pytest.importorskip("tools.registry")
    guard = pytest.importorskip("agent.tool_guardrails")

    assert kept_output(registry.tool_error("bad input", success=False)) == (
        "bad input",
        {"error": "bad input", "success": False},
    )
    decision = guard.ToolGuardrailDecision(
        action="halt", code="same_tool_failure_halt", message="Stop retrying.", tool_name="terminal", count=5
    )
    text, data = kept_output(guard.toolguard_synthetic_result(decision))
    assert text == "Stop retrying." and data["guardrail"]["count"] == 5
    # The guardrail's warning appended after a real result: the result is read, the note is not output.
    warned = guard.append_toolguard_guidance(
        json.dumps({"output": "hello", "exit_code": 0, "error": None}),
        guard.ToolGuardrailDecision(
            action="warn", code="w", message="careful", tool_name="terminal", count=3
        ),
    )
    assert "[Tool loop warning: w; count=3; careful]" in warned
    assert kept_output(warned) == ("hello", {"output": "hello", "exit_code": 0, "error": None})


def test_a_result_cut_for_size_is_kept_whole():
    storage = pytest.importorskip("tools.tool_result_storage")
    budget = pytest.importorskip("tools.budget_config")

    content = json.dumps({"output": "x" * 5000, "exit_code": 0, "error": None})
    cut = storage.maybe_persist_tool_result(
        content, "terminal", "call_1", env=None, config=budget.BudgetConfig(preview_size=200), threshold=100
    )
    assert cut.startswith('{"output": "xxx') and "[Truncated:" in cut
    assert kept_output(cut) == (cut, None)
    # A result within the preview size gets the same note appended after its complete JSON.
    whole = storage.maybe_persist_tool_result(
        '{"output": "ok", "exit_code": 0}', "terminal", "call_2", env=None, threshold=10
    )
    assert whole.endswith("Full output could not be saved to sandbox.]")
    assert kept_output(whole) == ("ok", {"output": "ok", "exit_code": 0})


def test_through_a_store(tmp_path):
    """The dispatcher gives every stored result its kept output, whatever the tool."""
    pytest.importorskip("hermes_state")
    storage = pytest.importorskip("tools.tool_result_storage")
    budget = pytest.importorskip("tools.budget_config")

    cut = storage.maybe_persist_tool_result(
        json.dumps({"output": "y" * 3000, "exit_code": 0, "error": None}),
        "read_terminal",
        "c2",
        env=None,
        config=budget.BudgetConfig(preview_size=100),
        threshold=100,
    )
    # web_search's result shape (tools/web_tools.py ``web_search_tool`` docstring), hand-built: producing
    # it needs a search provider on the network.
    search = {
        "success": True,
        "data": {
            "web": [
                {"title": "A", "url": "https://a.example", "description": "about a", "position": 1},
            ]
        },
    }
    rows = [
        hermesdb.user("go"),
        hermesdb.assistant("", hermesdb.call("c1", "web_search", query="q")),
        hermesdb.tool("c1", "web_search", json.dumps(search, indent=2)),
        hermesdb.assistant("", hermesdb.call("c2", "read_terminal")),
        hermesdb.tool("c2", "read_terminal", cut),
    ]
    path = hermesdb.write_store(tmp_path / "state.db", [hermesdb.SessionSpec("s1", rows)])
    with open_history(dbs=[path]) as history:
        session = history.load(history.find("s1"))
    results = [t.result for t in session.turns if t.result is not None]
    assert [r.output for r in results] == ["A\nhttps://a.example\nabout a", cut]
    assert results[0].data == search and results[1].data is None


# -- shapes Hermes cannot be made to produce here ------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A bare number, as a tool could return: kept as written (only counts inside a document are not).
        ("41", ("41", 41)),
        # Text that merely opens with a bracket is not JSON with a note after it.
        ("[1] first hit\n[2] second hit", ("[1] first hit\n[2] second hit", None)),
        ('{"a": 1}trailing', ('{"a": 1}trailing', None)),
        # Output and error both present (execute_code can return both): both kept, in key order.
        ('{"error": "E", "output": "O"}', ("O\nE", {"error": "E", "output": "O"})),
        # "_" keys are skipped at any depth; nested output keys do not select anything.
        (
            '{"_debug": "x", "r": {"_hidden": "y", "output": "z"}}',
            ("z", {"_debug": "x", "r": {"_hidden": "y", "output": "z"}}),
        ),
        ("", ("", None)),
    ],
)
def test_hand_built_shapes(text: str, expected: tuple[str, Any]):
    """Hand-built: no Hermes tool in 0.19 returns these; they guard the edges of the rule."""
    assert kept_output(text) == expected
