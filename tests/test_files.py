"""Files read and edited by ``read_file``, ``write_file`` and ``patch`` calls, and whether Hermes applied
them.

The results are real: Hermes' own tools (``tools.file_tools`` of hermes-agent 0.19.0, through its tool
registry as the agent loop calls them) run in a tmp workspace with ``HERMES_HOME`` at a tmp sandbox, and
what they return is what the reader reads. Results their tools do not give here are hand-built, each
saying why.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import hermesdb
from hermes_trail import open_history
from hermes_trail.hermes.decode.files import interpret_files
from hermes_trail.model import FileEdit, ToolCall, ToolResult

Tool = Callable[[str, dict[str, Any]], str]


@pytest.fixture
def workspace(tmp_path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def hermes_tool(hermes_sandbox, request) -> Iterator[Tool]:
    """Run one of Hermes' tools by name with the model's arguments; returns the text Hermes stores."""
    file_tools = pytest.importorskip("tools.file_tools")
    from tools.registry import registry

    task_id = f"trail-{request.node.name}"

    def run(name: str, args: dict[str, Any]) -> str:
        result = registry.dispatch(name, args, task_id=task_id)
        assert isinstance(result, str)
        return result

    yield run
    file_tools.clear_file_ops_cache(task_id)


def make_call(name: str, args: dict[str, Any] | None, result: str | None, data: Any = None) -> ToolCall:
    tool_result = None
    if result is not None:
        tool_result = ToolResult(
            call_id="call_1", tool_name=name, text=result, source_row=2, time=None, data=data
        )
    return ToolCall(
        id="call_1",
        aliases=("call_1",),
        name=name,
        arguments_text=json.dumps(args) if args is not None else "{not json",
        arguments=args,
        result=tool_result,
    )


def interpreted(tool: Tool, name: str, args: dict[str, Any]) -> ToolCall:
    """Run the tool as Hermes does and read the call with its result."""
    call = make_call(name, args, tool(name, args))
    interpret_files(call)
    return call


# -- write_file --------------------------------------------------------------------------------------------
def test_write_file_gives_the_written_lines(hermes_tool, workspace):
    path = str(workspace / "pkg" / "hello.py")
    content = "def greet(name):\n    return 'hi ' + name\n\n# end\n"
    call = interpreted(hermes_tool, "write_file", {"path": path, "content": content})
    assert call.edits == [
        FileEdit(
            path=path,
            action="write",
            added=["def greet(name):", "    return 'hi ' + name", "", "# end"],
            applied=True,
        )
    ]
    assert call.reads == []
    assert Path(path).read_text() == "\n".join(call.edits[0].added) + "\n"


def test_write_file_without_a_final_newline_keeps_its_last_line(hermes_tool, workspace):
    path = str(workspace / "a.txt")
    call = interpreted(hermes_tool, "write_file", {"path": path, "content": "one\ntwo"})
    assert (call.edits[0].added, call.edits[0].applied) == (["one", "two"], True)
    call = interpreted(hermes_tool, "write_file", {"path": path, "content": ""})
    assert (call.edits[0].added, call.edits[0].applied) == ([], True)


def test_write_file_lines_split_at_newlines_only(hermes_tool, workspace):
    path = str(workspace / "crlf.txt")
    call = interpreted(hermes_tool, "write_file", {"path": path, "content": "a\r\nb\u2028c\fd\n"})
    assert (call.edits[0].added, call.edits[0].applied) == (["a\r", "b\u2028c\fd"], True)


def test_write_file_hermes_refuses_is_not_applied(hermes_tool, workspace):
    path = str(workspace / "a.py")
    call = interpreted(hermes_tool, "write_file", {"path": path})
    assert json.loads(call.result.text)["error"].startswith("write_file: missing required field 'content'")
    assert call.edits == [FileEdit(path=path, action="write", applied=False)]
    assert not Path(path).exists()


def test_write_file_without_a_path_edits_nothing(hermes_tool):
    call = interpreted(hermes_tool, "write_file", {"content": "x"})
    assert "error" in json.loads(call.result.text)
    assert call.edits == []


# -- patch, replace mode -----------------------------------------------------------------------------------
def test_replace_gives_old_and_new(hermes_tool, workspace):
    path = str(workspace / "app.py")
    hermes_tool("write_file", {"path": path, "content": "def add(a, b):\n    return a - b\n"})
    args = {
        "mode": "replace",
        "path": path,
        "old_string": "def add(a, b):\n    return a - b",
        "new_string": "def add(a, b):\n    # sum\n    return a + b",
    }
    call = interpreted(hermes_tool, "patch", args)
    assert call.edits == [
        FileEdit(
            path=path,
            action="replace",
            removed=["def add(a, b):", "    return a - b"],
            added=["def add(a, b):", "    # sum", "    return a + b"],
            applied=True,
        )
    ]
    assert Path(path).read_text() == "def add(a, b):\n    # sum\n    return a + b\n"


def test_replace_is_the_default_mode(hermes_tool, workspace):
    path = str(workspace / "a.txt")
    hermes_tool("write_file", {"path": path, "content": "alpha beta\n"})
    call = interpreted(hermes_tool, "patch", {"path": path, "old_string": "beta", "new_string": ""})
    assert call.edits == [FileEdit(path=path, action="replace", removed=["beta"], added=[], applied=True)]


def test_replace_that_finds_nothing_is_not_applied(hermes_tool, workspace):
    path = str(workspace / "a.txt")
    hermes_tool("write_file", {"path": path, "content": "alpha\n"})
    call = interpreted(
        hermes_tool, "patch", {"mode": "replace", "path": path, "old_string": "zeta", "new_string": "x"}
    )
    assert json.loads(call.result.text)["success"] is False
    assert call.edits == [FileEdit(path=path, action="replace", removed=["zeta"], added=["x"], applied=False)]


def test_replace_missing_an_argument_is_not_applied(hermes_tool, workspace):
    path = str(workspace / "a.txt")
    hermes_tool("write_file", {"path": path, "content": "alpha\n"})
    call = interpreted(hermes_tool, "patch", {"mode": "replace", "path": path, "old_string": "alpha"})
    assert json.loads(call.result.text) == {"error": "old_string and new_string required"}
    assert call.edits == [FileEdit(path=path, action="replace", removed=["alpha"], applied=False)]


def test_replace_without_a_path_and_unknown_modes_edit_nothing(hermes_tool):
    call = interpreted(hermes_tool, "patch", {"mode": "replace", "old_string": "a", "new_string": "b"})
    assert json.loads(call.result.text) == {"error": "path required"}
    assert call.edits == []
    call = interpreted(hermes_tool, "patch", {"mode": "rewrite", "path": "a.py"})
    assert json.loads(call.result.text) == {"error": "Unknown mode: rewrite"}
    assert call.edits == []


# -- patch, V4A mode ---------------------------------------------------------------------------------------
def _files(workspace: Path, **contents: str) -> dict[str, str]:
    paths = {}
    for name, text in contents.items():
        path = workspace / f"{name}.txt"
        path.write_text(text)
        paths[name] = str(path)
    return paths


def test_v4a_patch_applied_as_a_whole(hermes_tool, workspace):
    p = _files(workspace, upd="one\ntwo\nthree\n", gone="bye\n", src="moving\n")
    new, dst = str(workspace / "new.txt"), str(workspace / "moved.txt")
    text = (
        "*** Begin Patch\n"
        f"*** Update File: {p['upd']}\n@@\n one\n-two\n+TWO\n three\n"
        f"*** Add File: {new}\n+fresh\n+file\n"
        f"*** Delete File: {p['gone']}\n"
        f"*** Move File: {p['src']} -> {dst}\n"
        "*** End Patch"
    )
    call = interpreted(hermes_tool, "patch", {"mode": "patch", "patch": text})
    assert json.loads(call.result.text)["success"] is True
    assert call.edits == [
        FileEdit(path=p["upd"], action="update", removed=["two"], added=["TWO"], applied=True),
        FileEdit(path=new, action="add", added=["fresh", "file"], applied=True),
        FileEdit(path=p["gone"], action="delete", applied=True),
        FileEdit(path=p["src"], action="move", moved_to=dst, applied=True),
    ]
    assert Path(p["upd"]).read_text() == "one\nTWO\nthree\n"
    assert Path(new).read_text() == "fresh\nfile"
    assert not Path(p["gone"]).exists() and not Path(p["src"]).exists() and Path(dst).exists()


def test_v4a_patch_failing_validation_applies_nothing(hermes_tool, workspace):
    p = _files(workspace, upd="one\n")
    new = str(workspace / "new.txt")
    text = (
        f"*** Begin Patch\n*** Add File: {new}\n+x\n*** Update File: {p['upd']}\n-absent\n+y\n*** End Patch"
    )
    call = interpreted(hermes_tool, "patch", {"mode": "patch", "patch": text})
    assert json.loads(call.result.text)["error"].startswith("Patch validation failed")
    assert [(e.action, e.applied) for e in call.edits] == [("add", False), ("update", False)]
    assert not Path(new).exists()


def test_v4a_patch_hermes_cannot_parse_applies_nothing(hermes_tool, workspace):
    p = _files(workspace, upd="one\n")
    new = str(workspace / "new.txt")
    text = (
        f"*** Begin Patch\n*** Add File: {new}\n+x\n"
        f"*** Update File: {p['upd']}\n@@ no lines @@\n*** End Patch"
    )
    call = interpreted(hermes_tool, "patch", {"mode": "patch", "patch": text})
    assert json.loads(call.result.text)["error"].startswith("Failed to parse patch")
    assert call.edits == [
        FileEdit(path=new, action="add", added=["x"], applied=False),
        FileEdit(path=p["upd"], action="update", applied=False),
    ]


def test_v4a_patch_failing_midway_applies_what_it_wrote(hermes_tool, workspace):
    """The move passes validation (its source exists, its destination does not) and fails in ``mv``."""
    p = _files(workspace, upd="a\n", src="s\n", gone="g\n")
    dst = str(workspace / "no-such-dir" / "s.txt")
    text = (
        f"*** Begin Patch\n*** Update File: {p['upd']}\n-a\n+b\n*** Move File: {p['src']} -> {dst}\n"
        f"*** Delete File: {p['gone']}\n*** End Patch"
    )
    call = interpreted(hermes_tool, "patch", {"mode": "patch", "patch": text})
    assert json.loads(call.result.text)["error"].startswith("Apply phase failed")
    assert [(e.action, e.applied) for e in call.edits] == [
        ("update", True),
        ("move", False),
        ("delete", True),
    ]
    assert Path(p["upd"]).read_text() == "b\n" and Path(p["src"]).exists() and not Path(p["gone"]).exists()


def test_v4a_patch_moving_a_file_it_then_updates_applies_the_move_only(hermes_tool, workspace):
    """Validation reads the update's file before the move; applying it after the move finds it gone."""
    p = _files(workspace, src="s\n")
    dst = str(workspace / "dst.txt")
    text = (
        f"*** Begin Patch\n*** Move File: {p['src']} -> {dst}\n"
        f"*** Update File: {p['src']}\n-s\n+t\n*** End Patch"
    )
    call = interpreted(hermes_tool, "patch", {"mode": "patch", "patch": text})
    result = json.loads(call.result.text)
    assert result["error"].startswith("Apply phase failed") and result["files_modified"] == [
        f"{p['src']} -> {dst}"
    ]
    assert [(e.action, e.applied) for e in call.edits] == [("move", True), ("update", False)]
    assert Path(dst).read_text() == "s\n"


def test_v4a_patch_with_codex_move_to_edits_but_never_moves(hermes_tool, workspace):
    p = _files(workspace, a="x = 1\n")
    text = (
        f"*** Begin Patch\n*** Update File: {p['a']}\n*** Move to: {workspace}/b.txt\n"
        "@@\n-x = 1\n+x = 2\n*** End Patch"
    )
    call = interpreted(hermes_tool, "patch", {"mode": "patch", "patch": text})
    assert call.edits == [
        FileEdit(path=p["a"], action="update", removed=["x = 1"], added=["x = 2"], applied=True)
    ]
    assert Path(p["a"]).read_text() == "x = 2\n" and not (workspace / "b.txt").exists()


def test_v4a_patch_without_text_edits_nothing(hermes_tool):
    call = interpreted(hermes_tool, "patch", {"mode": "patch", "patch": ""})
    assert json.loads(call.result.text) == {"error": "patch content required"}
    assert call.edits == []


# -- read_file ---------------------------------------------------------------------------------------------
def test_read_file_names_the_file_read(hermes_tool, workspace):
    path = str(workspace / "a.txt")
    hermes_tool("write_file", {"path": path, "content": "a\n"})
    call = interpreted(hermes_tool, "read_file", {"path": path, "offset": 1, "limit": 10})
    assert (call.reads, call.edits) == ([path], [])
    missing = str(workspace / "missing.txt")
    call = interpreted(hermes_tool, "read_file", {"path": missing})
    assert json.loads(call.result.text)["error"].startswith("File not found")
    assert (call.reads, call.edits) == ([missing], [])
    assert interpreted(hermes_tool, "read_file", {"path": ""}).reads == []


def test_relative_paths_are_kept_as_given():
    call = make_call("read_file", {"path": "src/app.py"}, None)
    interpret_files(call)
    assert call.reads == ["src/app.py"]
    call = make_call("write_file", {"path": "./notes.md", "content": "n\n"}, None)
    interpret_files(call)
    assert call.edits == [FileEdit(path="./notes.md", action="write", added=["n"], applied=None)]


# -- reading results ---------------------------------------------------------------------------------------
def _large_patch_result(hermes_tool: Tool, workspace: Path) -> tuple[dict[str, Any], str]:
    """A replace whose diff (400 changed lines) makes a result larger than the threshold below."""
    path = workspace / "big.txt"
    path.write_text("same line\n" * 400)
    args = {
        "mode": "replace",
        "path": str(path),
        "old_string": "same",
        "new_string": "SAME",
        "replace_all": True,
    }
    return args, hermes_tool("patch", args)


class _Sandbox:
    """Stands in for the terminal environment ``maybe_persist_tool_result`` writes the full result into."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp

    def get_temp_dir(self) -> str:
        return str(self.tmp)

    def execute(self, command: str, **kw: Any) -> dict[str, Any]:
        return {"returncode": 0, "output": ""}


def test_a_result_hermes_cut_to_a_preview_still_says_it_applied(hermes_tool, workspace, tmp_path):
    storage = pytest.importorskip("tools.tool_result_storage")
    args, text = _large_patch_result(hermes_tool, workspace)
    assert json.loads(text)["success"] is True and len(text) > 10_000
    for env in (None, _Sandbox(tmp_path)):
        stored = storage.maybe_persist_tool_result(text, "patch", "call_1", env=env, threshold=2000)
        assert stored != text and not stored.startswith(text)
        with pytest.raises(ValueError):
            json.loads(stored)
        call = make_call("patch", args, stored)
        interpret_files(call)
        assert [e.applied for e in call.edits] == [True]


def test_a_failed_result_cut_to_a_preview_leaves_applied_unknown(tmp_path):
    """Hand-built: a failing patch result is never long enough for Hermes to cut, so it is padded here."""
    storage = pytest.importorskip("tools.tool_result_storage")
    text = json.dumps({"success": False, "diff": "x" * 5000, "files_modified": ["a"], "error": "Apply phase"})
    stored = storage.maybe_persist_tool_result(
        text, "patch", "call_1", env=_Sandbox(tmp_path), threshold=2000
    )
    call = make_call("patch", {"mode": "patch", "patch": "*** Update File: a\n-x\n+y"}, stored)
    interpret_files(call)
    assert [e.applied for e in call.edits] == [None]


def test_text_after_the_result_object_is_ignored(hermes_tool, workspace):
    """Hand-built: a plugin's ``transform_tool_result`` hook may append text after the tool's JSON."""
    path = str(workspace / "a.txt")
    text = hermes_tool("write_file", {"path": path, "content": "a\n"})
    call = make_call("write_file", {"path": path, "content": "a\n"}, text + "\n\n[plugin] note appended")
    interpret_files(call)
    assert call.edits[0].applied is True


def test_the_decoded_result_is_read_before_the_text():
    """Hand-built: ``data`` is what the decode layer (``tooloutput``) decoded from the text."""
    call = make_call(
        "patch", {"path": "a", "old_string": "a", "new_string": "b"}, "not json", data={"success": True}
    )
    interpret_files(call)
    assert call.edits[0].applied is True
    call = make_call("write_file", {"path": "a", "content": "a"}, "{}", data={"error": "denied"})
    interpret_files(call)
    assert call.edits[0].applied is False


@pytest.mark.parametrize("result", [None, "", "Tool execution interrupted", "[1, 2]", '{"status": "queued"}'])
def test_a_result_that_does_not_say_leaves_applied_unknown(result):
    """Hand-built: no result row (a call cut off), or a text no Hermes file tool returns."""
    for name, args in (
        ("write_file", {"path": "a", "content": "x"}),
        ("patch", {"mode": "replace", "path": "a", "old_string": "x", "new_string": "y"}),
        ("patch", {"mode": "patch", "patch": "*** Add File: a\n+x"}),
    ):
        call = make_call(name, args, result)
        interpret_files(call)
        assert [e.applied for e in call.edits] == [None], (name, result)


def test_arguments_that_are_not_an_object_give_nothing():
    """Hand-built: arguments a model sent that are not a JSON object; Hermes ran nothing with them."""
    call = make_call("write_file", None, '{"bytes_written": 1}')
    interpret_files(call)
    assert (call.edits, call.reads) == ([], [])


def test_reading_a_call_twice_gives_the_same_answer():
    call = make_call("patch", {"mode": "patch", "patch": "*** Add File: a\n+x"}, '{"success": true}')
    interpret_files(call)
    interpret_files(call)
    assert call.edits == [FileEdit(path="a", action="add", added=["x"], applied=True)]


# -- through a store -----------------------------------------------------------------------------------------
def test_a_store_hermes_wrote_reads_its_edits(hermes_tool, workspace, tmp_path):
    """Real tool results, recorded through ``SessionDB`` as the agent loop records them, read back."""
    path = str(workspace / "hello.py")
    steps = [
        ("call_w", "write_file", {"path": path, "content": "def greet():\n    return 'hi'\n"}),
        ("call_r", "read_file", {"path": path}),
        (
            "call_p",
            "patch",
            {
                "mode": "patch",
                "patch": f"*** Begin Patch\n*** Update File: {path}\n-    return 'hi'\n"
                "+    return 'hello'\n*** End Patch",
            },
        ),
        ("call_x", "patch", {"mode": "replace", "path": path, "old_string": "nope", "new_string": "x"}),
        ("call_t", "terminal", {"command": "true"}),
    ]
    messages: list[dict[str, Any]] = [hermesdb.user("Write hello.py")]
    for call_id, name, args in steps:
        result = hermes_tool(name, args) if name != "terminal" else json.dumps({"output": "", "exit_code": 0})
        messages += [
            hermesdb.assistant("", hermesdb.call(call_id, name, **args)),
            hermesdb.tool(call_id, name, result),
        ]
    messages.append(hermesdb.assistant("Done."))
    db = hermesdb.write_store(
        tmp_path / "home" / "state.db", [hermesdb.SessionSpec("20261102_120000_f11e5a", messages)]
    )
    with open_history(dbs=[db]) as history:
        session = history.load(history.find("20261102_120000_f11e5a"))
        calls = {c.id: c for t in session.turns for c in t.tool_calls}
    assert calls["call_w"].edits == [
        FileEdit(path=path, action="write", added=["def greet():", "    return 'hi'"], applied=True)
    ]
    assert calls["call_r"].reads == [path] and calls["call_r"].edits == []
    assert calls["call_p"].edits == [
        FileEdit(
            path=path,
            action="update",
            removed=["    return 'hi'"],
            added=["    return 'hello'"],
            applied=True,
        )
    ]
    assert calls["call_x"].edits == [
        FileEdit(path=path, action="replace", removed=["nope"], added=["x"], applied=False)
    ]
    assert calls["call_t"].edits == [] and calls["call_t"].reads == []


# -- the corpus (tests/corpusgen.py) -------------------------------------------------------------------------
def _file_tools_session(corpus_dir: Path, version: str) -> tuple[list[ToolCall], str, str]:
    """The file_tools scenario's calls, and the two paths it names (in the workspace Hermes ran in)."""
    base = corpus_dir / version
    manifest = json.loads((base / "manifest.json").read_text())
    scenario = next(s for s in manifest["scenarios"] if s["scenario"] == "file_tools")
    (session_id,) = scenario["session_ids"]
    with open_history(dbs=[base / "hermes_home" / "state.db"]) as history:
        session = history.load(history.find(session_id))
        return [c for t in session.turns for c in t.tool_calls], scenario["hello"], scenario["missing"]


@pytest.mark.corpus
@pytest.mark.parametrize("version", ["corpus-v22", "corpus-v31"])
def test_corpus_file_tools_session(corpus_dir, version):
    """Both Hermes applied both patches (a patch that did not apply: the hand-made results above)."""
    calls, hello, missing_path = _file_tools_session(corpus_dir, version)
    assert [c.name for c in calls] == ["write_file", "read_file", "patch", "patch", "read_file"]
    write, read, v4a, replace, missing = calls
    assert write.edits == [
        FileEdit(
            path=hello, action="write", added=["def greet(name):", "    return 'hi ' + name"], applied=True
        )
    ]
    assert (read.reads, read.edits) == ([hello], [])
    assert v4a.edits == [
        FileEdit(
            path=hello,
            action="update",
            removed=["    return 'hi ' + name"],
            added=["    return 'hello, ' + name"],
            applied=True,
        )
    ]
    assert replace.edits == [
        FileEdit(path=hello, action="replace", removed=["hello, "], added=["Hello, "], applied=True)
    ]
    assert (missing.reads, missing.edits) == ([missing_path], [])
    assert all(c.reads == [] for c in (write, v4a, replace))
