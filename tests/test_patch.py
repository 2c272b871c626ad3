"""V4A patches read as Hermes reads them, held to Hermes' own parser (``tools.patch_parser`` of the installed
hermes-agent 0.19.0, run in process) as the oracle.

Hermes' ``parse_v4a_patch`` gives operations with hunks; :func:`hermes_edits` maps them to what each
operation does to its file the way Hermes' ``_apply_add``/``_apply_update`` use them (an Add writes its
``+`` lines; an Update removes its ``-`` lines and adds its ``+`` lines). Patches Hermes refuses with a
``Parse error`` have no operations to compare; those cases check the refusal and this reader's answer.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from hermes_trail.hermes.decode.patch import parse_v4a
from hermes_trail.model import FileEdit

patch_parser = pytest.importorskip("tools.patch_parser")

Edit = tuple[str, str, str | None, list[str], list[str]]


def hermes_parse(text: str) -> tuple[list[Any], str | None]:
    ops, error = patch_parser.parse_v4a_patch(text)
    return ops, error


def hermes_edits(ops: list[Any]) -> list[Edit]:
    out: list[Edit] = []
    for op in ops:
        lines = [line for hunk in op.hunks for line in hunk.lines]
        added = [line.content for line in lines if line.prefix == "+"]
        removed = [line.content for line in lines if line.prefix == "-"]
        kind = op.operation.value
        if kind == "add":
            out.append((op.file_path, "add", None, [], added))
        elif kind == "update":
            out.append((op.file_path, "update", None, removed, added))
        else:
            out.append((op.file_path, kind, op.new_path if kind == "move" else None, [], []))
    return out


def ours(text: str) -> list[Edit]:
    return [(e.path, e.action, e.moved_to, e.removed, e.added) for e in parse_v4a(text)]


# Patches Hermes parses without error: each must read exactly as Hermes reads it.
AGREED = {
    "add": "*** Begin Patch\n*** Add File: src/new.py\n+import os\n+\n+print(os.getcwd())\n*** End Patch",
    "add_ignores_minus_and_context": (
        "*** Begin Patch\n*** Add File: a.txt\n+one\n-not written\n context\nbare\n+two\n*** End Patch"
    ),
    "update_several_hunks": (
        "*** Begin Patch\n"
        "*** Update File: app/main.py\n"
        "@@ def load(path):\n"
        "     with open(path) as fh:\n"
        "-        return fh.read()\n"
        "+        return fh.read().strip()\n"
        "@@ class Loader @@\n"
        "-    retries = 1\n"
        "+    retries = 3\n"
        "+    backoff = 0.5\n"
        "@@\n"
        " def main():\n"
        "-    run()\n"
        "+    run(verbose=True)\n"
        "*** End Patch"
    ),
    "update_lines_before_first_hunk_header": (
        "*** Begin Patch\n*** Update File: x.py\n-a = 1\n+a = 2\n"
        "@@ def f():\n-    pass\n+    return 1\n*** End Patch"
    ),
    "lines_without_prefix_and_no_newline_marker": (
        "*** Begin Patch\n*** Update File: x.py\n@@\nimport sys\n-x = 1\n"
        "\\ No newline at end of file\n+x = 2\n\n\n*** End Patch"
    ),
    "delete_then_lines_belonging_to_no_file": (
        "*** Begin Patch\n*** Delete File: old.py\n-was here\n+stray\n@@ nothing @@\n context\n"
        "*** Update File: kept.py\n-a\n+b\n*** End Patch"
    ),
    "move_then_lines_belonging_to_no_file": (
        "*** Begin Patch\n*** Move File: a/old.py -> b/new.py\n-stray\n+stray\n"
        "*** Add File: c.py\n+c\n*** End Patch"
    ),
    "update_then_move": (
        "*** Begin Patch\n*** Update File: lib/util.py\n@@\n-VERSION = 1\n+VERSION = 2\n"
        "*** Move File: lib/util.py -> lib/utils.py\n*** End Patch"
    ),
    "move_then_update_of_the_new_path": (
        "*** Begin Patch\n*** Move File: one.md -> two.md\n"
        "*** Update File: two.md\n-# One\n+# Two\n*** End Patch"
    ),
    "codex_move_to_is_context_not_a_rename": (
        "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/b.py\n@@ def a():\n-    return 1\n"
        "+    return 2\n*** End Patch"
    ),
    "codex_end_of_file_is_context": (
        "*** Begin Patch\n*** Update File: a.py\n@@\n last = True\n-tail = 1\n+tail = 2\n*** End of File\n"
        "*** End Patch"
    ),
    "junk_before_first_header_and_outside_markers": (
        "Here is the patch:\n*** Begin Patch\nsome prose\n+not in a file\n@@ stray @@\n"
        "*** Add File: a.txt\n+a\n*** End Patch\n*** Add File: after_end.txt\n+ignored\n"
    ),
    "no_begin_no_end": "*** Update File: a.py\n@@\n-x\n+y\n*** Delete File: b.py\n",
    "end_without_begin": "*** Add File: a\n+1\n*** End Patch\n*** Add File: b\n+2\n",
    "begin_without_end": "prose\n*** Begin Patch\n*** Add File: a\n+1\n*** Add File: b\n+2",
    "last_begin_before_end_wins": (
        "*** Begin Patch\n*** Add File: first\n+1\n*** Begin Patch\n*** Add File: second\n+2\n*** End Patch"
    ),
    "begin_after_end_is_not_read": (
        "*** Add File: a\n+1\n*** End Patch\n*** Begin Patch\n*** Add File: b\n+2\n"
    ),
    "marker_text_inside_a_line_counts_in_0_19": (
        "*** Begin Patch\n*** Update File: doc.md\n-old\n+the *** End Patch marker\n+more\n*** End Patch"
    ),
    "begin_marker_inside_a_line_counts_in_0_19": (
        "*** Begin Patch\n*** Add File: a\n+1\n+see *** Begin Patch here\n*** Add File: b\n+2\n*** End Patch"
    ),
    "no_space_and_extra_space_headers": (
        "***Begin Patch\n***Update File:tight.py\n-a\n+b\n***   Add   File:   spaced.py   \n+x\n"
        "***Delete File:gone.py\n***  Move\tFile:  from.py->to.py  \n***End Patch"
    ),
    "header_not_at_column_0_is_a_line": (
        "*** Begin Patch\n*** Update File: a.py\n *** Add File: not_a_header.py\n-x\n+y\n*** End Patch"
    ),
    "prefixed_header_text_is_content": (
        "*** Begin Patch\n*** Add File: notes.md\n+*** Update File: in content\n+-dash\n*** End Patch"
    ),
    "unified_diff_style_hunk_headers": (
        "*** Begin Patch\n*** Update File: a.c\n@@ -1,3 +1,3 @@\n int x;\n-int y;\n+long y;\n*** End Patch"
    ),
    "crlf": (
        "*** Begin Patch\r\n*** Update File: win.txt\r\n@@ hint @@\r\n line\r\n-old\r\n+new\r\n\r\n"
        "*** Add File: more.txt\r\n+a\r\n*** End Patch\r\n"
    ),
    "unicode_and_tabs": "*** Begin Patch\n*** Update File: ü/名前.py\n-\tx = 'é'\n+\tx = '名'\n*** End Patch",
    "move_arrow_inside_paths_is_split_at_first": (
        "*** Begin Patch\n*** Move File: a -> b -> c\n*** End Patch"
    ),
    "empty_patch": "",
    "only_markers": "*** Begin Patch\n*** End Patch",
    "prose_only": "I would change the greeting.\n@@\n-x\n+y",
}


@pytest.mark.parametrize("name", sorted(AGREED))
def test_reads_as_hermes_parser_reads(name):
    text = AGREED[name]
    ops, error = hermes_parse(text)
    assert error is None, f"case {name!r} should be one Hermes accepts: {error}"
    assert ours(text) == hermes_edits(ops)


def test_cases_are_not_trivial():
    """Most agreed cases name at least one file, so agreement is not the agreement of two empty lists."""
    assert sum(1 for text in AGREED.values() if parse_v4a(text)) >= len(AGREED) - 3


def test_update_add_delete_move_as_file_edits():
    text = (
        "*** Begin Patch\n"
        "*** Add File: new.txt\n+hello\n+world\n"
        "*** Update File: app.py\n@@ def f():\n-    return 1\n+    return 2\n context\n@@\n-a\n+b\n+c\n"
        "*** Delete File: old.txt\n+stray line after a delete\n"
        "*** Move File: x.py -> y.py\n-stray line after a move\n"
        "*** End Patch"
    )
    assert parse_v4a(text) == [
        FileEdit(path="new.txt", action="add", added=["hello", "world"]),
        FileEdit(
            path="app.py", action="update", removed=["    return 1", "a"], added=["    return 2", "b", "c"]
        ),
        FileEdit(path="old.txt", action="delete"),
        FileEdit(path="x.py", action="move", moved_to="y.py"),
    ]
    assert all(edit.applied is None for edit in parse_v4a(text))


def test_codex_move_to_renames_nothing():
    (edit,) = parse_v4a("*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n-x\n+y\n*** End Patch")
    assert (edit.path, edit.action, edit.moved_to) == ("a.py", "update", None)
    assert (edit.removed, edit.added) == (["x"], ["y"])


def test_crlf_keeps_the_carriage_return_in_lines_as_0_19_does():
    (edit,) = parse_v4a("*** Begin Patch\r\n*** Update File: w.txt\r\n-old\r\n+new\r\n*** End Patch\r\n")
    assert (edit.path, edit.removed, edit.added) == ("w.txt", ["old\r"], ["new\r"])


# Patches Hermes refuses as a whole ("Parse error"): nothing is applied, but the call still names files.
REFUSED = {
    "update_without_hunks": (
        "*** Begin Patch\n*** Update File: a.py\n@@ only a header @@\n\n"
        "*** Add File: b.py\n+b\n*** End Patch",
        [("a.py", "update", None, [], []), ("b.py", "add", None, [], ["b"])],
    ),
    "update_with_only_no_newline_markers": (
        "*** Update File: a.py\n\\ No newline at end of file\n",
        [("a.py", "update", None, [], [])],
    ),
    "empty_update_path_names_no_file": (
        "*** Begin Patch\n*** Update File:  \n-x\n+y\n*** Add File: b\n+b\n*** End Patch",
        [("b", "add", None, [], ["b"])],
    ),
    "move_without_destination": (
        "*** Begin Patch\n*** Move File: a.py ->  \n*** End Patch",
        [("a.py", "move", None, [], [])],
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_patches_hermes_refuses_still_name_their_files(name):
    text, expected = REFUSED[name]
    ops, error = hermes_parse(text)
    assert ops == [] and error is not None and error.startswith("Parse error")
    assert ours(text) == expected


FRAGMENTS = [
    "*** Begin Patch",
    "*** End Patch",
    "***Begin Patch",
    "***End Patch",
    "*** Update File: a.py",
    "*** Update File: dir/b.py",
    "***Update File:c",
    "*** Add File: new.txt",
    "*** Add File: n2",
    "*** Delete File: d.py",
    "*** Move File: m.py -> n.py",
    "*** Move File: x -> ",
    "*** Move to: z.py",
    "*** End of File",
    "*** Update File: ",
    "@@",
    "@@ def f(): @@",
    "@@ -1,2 +1,2 @@",
    "+added",
    "+",
    "-removed",
    "-",
    " context",
    " ",
    "",
    "bare text",
    "\\ No newline at end of file",
    "+*** End Patch",
    "x *** Begin Patch",
    "\r",
    "+crlf\r",
    "-crlf\r",
    "*** Add File: w\r",
    " *** Delete File: q",
    "+ spaced",
    "--double",
    "++double",
    "@@@",
    "*** Something else",
]


def test_random_patches_agree_with_hermes_and_never_raise():
    rng = random.Random(20261130)
    compared = 0
    for _ in range(3000):
        text = "\n".join(rng.choice(FRAGMENTS) for _ in range(rng.randint(0, 14)))
        edits = ours(text)  # must not raise
        ops, error = hermes_parse(text)
        if error is None:
            assert edits == hermes_edits(ops), text
            compared += 1
        else:
            # Refused by Hermes: still the files of the patch, one per header with a path.
            assert all(path for path, *_ in edits), text
    assert compared > 1000


@pytest.mark.parametrize(
    "text",
    [
        "\x00\x01",
        "*" * 5000,
        "@@\n" * 200,
        "*** Move File: ->",
        "*** Move File:  -> b",
        "-\n+\n \n\\",
        "\n" * 50,
    ],
)
def test_malformed_input_never_raises(text):
    assert isinstance(parse_v4a(text), list)
