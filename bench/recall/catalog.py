"""The building blocks of the recall store: sessions as Hermes records them, and the queries that target them.

A :class:`Sess` is one Hermes session described turn by turn: user prompts, assistant replies and tool
calls with their results, in the shapes Hermes' own tools write (``terminal`` returns
``{"output", "exit_code", "error"}``, ``read_file`` line-numbered ``content``, ``patch`` a ``diff`` and
``files_modified``, ``write_file`` ``bytes_written``, ``search_files`` ``matches``, ``web_search``
``data.web``). Each message is kept twice: as the keyword arguments of ``SessionDB.append_message``
(``build_store.py`` replays them) and as plain text per role, so :meth:`Catalog.check` can prove that a
query's needle is where the query's kind says it is, and nowhere else.

Everything is deterministic: times and ids come from ``random.Random`` seeded with fixed strings, never
the clock.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

# 2026-01-05 00:00 UTC: day 0 of the store. Sessions spread over about six months from there.
EPOCH = 1_767_571_200.0
DAYS = 175
KINDS = ("keyword", "paraphrase", "error", "path", "tool_output", "cjk", "updated_fact", "profile")
LANGUAGES = {"zh": "Chinese", "ja": "Japanese", "de": "German", "es": "Spanish", "fr": "French"}
# Hermes' memory files (tools/memory_tool.py): entries joined by a section sign on its own line.
ENTRY_DELIMITER = "\n§\n"
# The kinds a target's summary is meant to support (``summaries.jsonl``; the queries are written from them).
HINTS = (
    "keyword",
    "paraphrase",
    "cross_lingual",
    "error",
    "path",
    "tool_output",
    "update",
    "profile",
    "memory_skill",
)
MODELS = ("anthropic/claude-sonnet-4", "anthropic/claude-opus-4.1", "gpt-5", "qwen/qwen3-coder")
END_REASONS = {
    "cli": "cli_close",
    "telegram": "session_reset",
    "cron": "cron_complete",
    "subagent": "agent_close",
    "discord": "session_reset",
}


def _hex(text: str, n: int) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:n]


def _stamp(ts: float) -> str:
    return time.strftime("%Y%m%d_%H%M%S", time.gmtime(ts))


@dataclass
class Text:
    """One message's searchable text, for the needle checks: who said it and what."""

    role: str  # user | assistant | call (a tool call's arguments) | tool
    text: str
    failed: bool = False  # a tool result with a non-zero exit code


class Sess:
    """One session, built by chaining ``u`` (user), ``a`` (assistant reply) and the tool helpers."""

    def __init__(
        self,
        cat: Catalog,
        key: str,
        *,
        source: str = "cli",
        cwd: str | None = None,
        title: str | None = None,
        day: float | None = None,
        profile: str | None = None,
        parent: Sess | None = None,
        job: str | None = None,
        model: str | None = None,
        chat: str | None = None,
    ) -> None:
        self.key = key
        self.source = source
        self.cwd = cwd
        self.title = title
        self.day = day
        self.profile = profile
        self.parent = parent
        self.job = job
        self.model = model
        self.chat = chat  # a telegram or discord chat id
        # as a summarised target (summaries.jsonl): the kind of query it supports, its note, its language,
        # a fact that must be in it and in no other session, and the sessions whose fact it replaces
        self.hint: str | None = None
        self.summary = ""
        self.lang = "en"
        self.fact: str | None = None
        self.supersedes: list[Sess] = []
        self.messages: list[dict[str, Any]] = []
        self.texts: list[Text] = []
        self.id = ""
        self.start = 0.0
        self._calls = 0
        cat.sessions.append(self)

    # -- plain turns ------------------------------------------------------------------------------------
    def u(self, text: str) -> Sess:
        self.messages.append({"role": "user", "content": text})
        self.texts.append(Text("user", text))
        return self

    def a(self, text: str) -> Sess:
        self.messages.append({"role": "assistant", "content": text, "finish_reason": "stop"})
        self.texts.append(Text("assistant", text))
        return self

    # -- tools ------------------------------------------------------------------------------------------
    def call(
        self, name: str, arguments: dict[str, Any], result: Any, note: str = "", failed: bool = False
    ) -> Sess:
        """An assistant row calling ``name`` and the tool row with its result (a dict is stored as JSON)."""
        self._calls += 1
        call_id = "call_" + _hex(f"{self.key}:{self._calls}", 8)
        tool_call = {
            "id": call_id,
            "call_id": call_id,
            "response_item_id": "fc_" + call_id.removeprefix("call_"),
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments, ensure_ascii=False)},
        }
        self.messages.append(
            {"role": "assistant", "content": note, "tool_calls": [tool_call], "finish_reason": "tool_calls"}
        )
        if note:
            self.texts.append(Text("assistant", note))
        self.texts.append(Text("call", " ".join(str(v) for v in arguments.values())))
        content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        self.messages.append({"role": "tool", "content": content, "tool_call_id": call_id, "tool_name": name})
        self.texts.append(Text("tool", _plain(result), failed))
        return self

    def sh(self, command: str, output: str, code: int = 0, note: str = "") -> Sess:
        result = {"output": output, "exit_code": code, "error": None}
        return self.call("terminal", {"command": command}, result, note, failed=code != 0)

    def path(self, rel: str) -> str:
        if rel.startswith(("/", "~")) or not self.cwd:
            return rel
        return f"{self.cwd}/{rel}"

    def read(self, rel: str, text: str, note: str = "") -> Sess:
        lines = text.splitlines()
        numbered = "".join(f"{i}|{line}\n" for i, line in enumerate(lines, 1))
        result = {
            "content": numbered,
            "total_lines": len(lines),
            "file_size": len(text.encode()),
            "truncated": False,
            "is_binary": False,
            "is_image": False,
        }
        return self.call("read_file", {"path": self.path(rel)}, result, note)

    def patch(self, rel: str, old: str, new: str, note: str = "") -> Sess:
        path = self.path(rel)
        old_lines, new_lines = old.splitlines(), new.splitlines()
        diff = (
            f"--- a/{path}\n+++ b/{path}\n@@ -1,{len(old_lines)} +1,{len(new_lines)} @@\n"
            + "".join(f"-{line}\n" for line in old_lines)
            + "".join(f"+{line}\n" for line in new_lines)
        )
        result = {
            "success": True,
            "diff": diff,
            "files_modified": [path],
            "lint": {"status": "ok", "output": ""},
            "resolved_path": path,
        }
        args = {"mode": "replace", "path": path, "old_string": old, "new_string": new}
        return self.call("patch", args, result, note)

    def write(self, rel: str, content: str, note: str = "") -> Sess:
        path = self.path(rel)
        result = {
            "bytes_written": len(content.encode()),
            "dirs_created": False,
            "lint": {"status": "ok", "output": ""},
            "resolved_path": path,
            "files_modified": [path],
        }
        return self.call("write_file", {"path": path, "content": content}, result, note)

    def grep(
        self, pattern: str, matches: list[tuple[str, int, str]], where: str = ".", note: str = ""
    ) -> Sess:
        found = [{"path": self.path(p), "line": n, "content": c} for p, n, c in matches]
        result = {"matches": found, "total_count": len(found), "truncated": False}
        return self.call(
            "search_files", {"pattern": pattern, "target": "content", "path": where}, result, note
        )

    def web(self, query: str, results: list[tuple[str, str, str]], note: str = "") -> Sess:
        web = [
            {"title": t, "url": url, "description": d, "position": i}
            for i, (t, url, d) in enumerate(results, 1)
        ]
        return self.call("web_search", {"query": query}, {"success": True, "data": {"web": web}}, note)

    # -- derived ----------------------------------------------------------------------------------------
    def text_of(self, *roles: str) -> str:
        return "\n".join(t.text for t in self.texts if t.role in roles)


def _plain(result: Any) -> str:
    """Every string in a tool result, joined: what a reader of the output sees."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        return "\n".join(_plain(v) for v in result.values())
    if isinstance(result, list):
        return "\n".join(_plain(v) for v in result)
    return "" if result is None else str(result)


@dataclass
class Query:
    kind: str
    query: str
    targets: list[Sess]
    needle: str | None = None  # a string that must occur in the targets, and in no other session
    profile: str | None = None
    note: str = ""
    older: list[Sess] = field(default_factory=list)  # updated_fact: sessions holding the superseded value


@dataclass
class Note:
    """A memory entry or a skill, with its summary: Hermes' files under a profile's home."""

    profile: str | None
    target: str  # memory:<profile>:MEMORY.md, memory:<profile>:USER.md, skill:<profile>:<name>
    text: str  # the entry, or the whole SKILL.md
    summary: str
    fact: str  # in the text, and in no session
    path: str = ""  # relative to the profile's home


@dataclass
class Catalog:
    sessions: list[Sess] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    # sessions from this index on get their times from their own random stream, so adding them leaves the
    # ids of the sessions before them (and so queries.jsonl) as they were
    extra_from: int | None = None

    def s(self, key: str, **kw: Any) -> Sess:
        return Sess(self, key, **kw)

    def q(
        self,
        kind: str,
        query: str,
        targets: Sess | list[Sess],
        needle: str | None = None,
        note: str = "",
        older: list[Sess] | None = None,
    ) -> None:
        assert kind in KINDS, kind
        targets = targets if isinstance(targets, list) else [targets]
        profiles = {t.profile for t in targets}
        assert len(profiles) == 1, f"targets of {query!r} span profiles"
        self.queries.append(Query(kind, query, targets, needle, profiles.pop(), note, older or []))

    def target(
        self,
        sess: Sess,
        hint: str,
        summary: str,
        *,
        fact: str | None = None,
        lang: str = "en",
        supersedes: list[Sess] | None = None,
    ) -> Sess:
        """Mark ``sess`` as a summarised target (a line of ``summaries.jsonl``)."""
        assert hint in HINTS, hint
        sess.hint, sess.summary, sess.fact, sess.lang = hint, summary, fact, lang
        sess.supersedes = supersedes or []
        return sess

    def memory(self, profile: str | None, name: str, entry: str, summary: str, fact: str) -> None:
        """One entry of ``memories/MEMORY.md`` or ``memories/USER.md`` in ``profile``'s home."""
        assert name in ("MEMORY.md", "USER.md"), name
        target = f"memory:{profile or 'default'}:{name}"
        self.notes.append(Note(profile, target, entry, summary, fact, f"memories/{name}"))

    def skill(
        self,
        profile: str | None,
        name: str,
        description: str,
        body: str,
        summary: str,
        fact: str,
        category: str | None = None,
        tags: tuple[str, ...] = (),
    ) -> None:
        """A ``skills/[<category>/]<name>/SKILL.md`` in ``profile``'s home, front matter as Hermes writes."""
        front = [
            f"name: {name}",
            f"description: {json.dumps(description, ensure_ascii=False)}",
            "version: 1.0.0",
        ]
        if tags:
            front += ["metadata:", "  hermes:", f"    tags: [{', '.join(tags)}]"]
        text = "---\n" + "\n".join(front) + "\n---\n\n" + body.strip() + "\n"
        rel = f"skills/{category}/{name}/SKILL.md" if category else f"skills/{name}/SKILL.md"
        self.notes.append(Note(profile, f"skill:{profile or 'default'}:{name}", text, summary, fact, rel))

    # -- times and ids ----------------------------------------------------------------------------------
    def finalize(self, seed: int = 7) -> None:
        """Give every session a start time and a Hermes-shaped id, and every message a timestamp."""
        split = len(self.sessions) if self.extra_from is None else self.extra_from
        seen: set[str] = set()
        for group, rng in (
            (self.sessions[:split], random.Random(seed)),
            (self.sessions[split:], random.Random(f"{seed}:more")),
        ):
            for sess in group:
                if sess.parent is not None:
                    continue
                day = sess.day if sess.day is not None else rng.uniform(0, DAYS)
                hour = 3.0 if sess.source == "cron" else rng.uniform(7.5, 23.0)
                sess.start = EPOCH + int(day) * 86400 + int(hour * 3600) + rng.randrange(60)
            for sess in group:
                if sess.parent is not None:
                    sess.start = sess.parent.start + 60 + rng.randrange(600)
        titles: set[str] = set()
        for sess in self.sessions:
            srng = random.Random(f"times:{sess.key}")
            if sess.model is None:
                sess.model = MODELS[srng.randrange(len(MODELS))]
            stamp = _stamp(sess.start)
            sess.id = f"cron_{sess.job}_{stamp}" if sess.source == "cron" else f"{stamp}_{_hex(sess.key, 6)}"
            assert sess.id not in seen, sess.id
            seen.add(sess.id)
            if sess.title:
                base, n = sess.title, 1
                while sess.title in titles:
                    n += 1
                    sess.title = f"{base} #{n}"
                titles.add(sess.title)
            t = sess.start
            for msg in sess.messages:
                if msg["role"] == "user":
                    t += srng.uniform(20, 240)
                elif msg["role"] == "tool":
                    t += srng.uniform(0.5, 20)
                else:
                    t += srng.uniform(3, 40)
                msg["timestamp"] = round(t, 3)
        self.sessions.sort(key=lambda s: s.start)

    # -- ground truth ---------------------------------------------------------------------------------
    def check(self) -> list[str]:
        """Problems with the ground truth: needles that are missing, misplaced or found elsewhere."""
        problems = []
        kinds = {k: 0 for k in KINDS}
        for q in self.queries:
            kinds[q.kind] += 1
            if q.kind == "updated_fact":
                if len(q.targets) != 1 or not q.older:
                    problems.append(f"{q.query!r}: an updated fact has one target and older sessions")
                elif any(o.start >= q.targets[0].start for o in q.older):
                    problems.append(f"{q.query!r}: the target is not the newest session")
            problems += self._check_words(q)
            if not q.needle:
                continue
            needle = q.needle.casefold()
            roles = ("tool",) if q.kind == "tool_output" else ("user", "assistant", "call", "tool")
            holders = {s.key for s in self.sessions if needle in s.text_of(*roles).casefold()}
            want = {t.key for t in q.targets}
            if holders != want:
                problems.append(f"{q.query!r}: needle {q.needle!r} in {sorted(holders)}, want {sorted(want)}")
            if q.kind == "tool_output":
                for t in q.targets:
                    if needle in t.text_of("user", "assistant", "call").casefold():
                        problems.append(f"{q.query!r}: needle {q.needle!r} is not only in tool output")
            if q.kind == "error":
                for t in q.targets:
                    if not any(x.failed and needle in x.text.casefold() for x in t.texts):
                        problems.append(
                            f"{q.query!r}: needle {q.needle!r} is not in a failing command's output"
                        )
        problems += [f"only {n} queries of kind {k}" for k, n in kinds.items() if n < 12]
        return problems + self.check_targets()

    def check_targets(self) -> list[str]:
        """Problems with the summarised targets and the memory/skill notes.

        A target's ``fact`` is in it and in no other session (a tool-output fact only in tool output, an
        error fact in a failing command's output, a path in a tool call's arguments); a newer session is
        newer than those it supersedes; a summary copies no message; a note's fact is in no session.
        """
        problems = []
        every = {s.key: s.text_of("user", "assistant", "call", "tool").casefold() for s in self.sessions}
        for sess in self.sessions:
            if sess.hint is None:
                continue
            if not sess.summary.strip():
                problems.append(f"{sess.key}: no summary")
            for t in sess.texts:
                if t.role in ("user", "assistant") and len(t.text) > 30 and t.text in sess.summary:
                    problems.append(f"{sess.key}: the summary copies {t.text[:40]!r}")
            for old in sess.supersedes:
                if old.start >= sess.start:
                    problems.append(f"{sess.key}: supersedes the newer {old.key}")
            if not sess.fact:
                continue
            fact = sess.fact.casefold()
            holders = {k for k, text in every.items() if fact in text}
            if holders != {sess.key}:
                problems.append(f"{sess.key}: fact {sess.fact!r} in {sorted(holders)}")
            if sess.hint == "tool_output" and fact in sess.text_of("user", "assistant", "call").casefold():
                problems.append(f"{sess.key}: tool-output fact {sess.fact!r} is not only in tool output")
            if sess.hint == "error" and not any(x.failed and fact in x.text.casefold() for x in sess.texts):
                problems.append(f"{sess.key}: error fact {sess.fact!r} is not in a failing command's output")
            if sess.hint == "path" and fact not in sess.text_of("call").casefold():
                problems.append(f"{sess.key}: path {sess.fact!r} is not in a tool call's arguments")
        names = {(n.profile, n.path) for n in self.notes if n.target.startswith("skill:")}
        if len(names) != sum(n.target.startswith("skill:") for n in self.notes):
            problems.append("two skills share a path")
        for note in self.notes:
            fact = note.fact.casefold()
            if fact not in note.text.casefold():
                problems.append(f"{note.target}: fact {note.fact!r} is not in its text")
            holders = sorted(k for k, text in every.items() if fact in text)
            if holders:
                problems.append(f"{note.target}: fact {note.fact!r} is also in sessions {holders}")
            others = [n.target for n in self.notes if n is not note and fact in n.text.casefold()]
            if others:
                problems.append(f"{note.target}: fact {note.fact!r} is also in {others}")
        return problems

    def summary_rows(self) -> list[dict[str, Any]]:
        """``summaries.jsonl``: one line per summarised session, memory entry and skill.

        A one-sentence summary gets a second sentence saying where its fact lives (a profile, a newer or
        older session, a memory file or skill), so every summary has at least two.
        """
        rows = self._summary_rows()
        for row in rows:
            if len(re.findall(r"[.!?](?:\s|$)", row["summary"])) >= 2:
                continue
            where = {"work": "the work profile", "bot": "the bot profile"}.get(
                row["profile"], "the root home"
            )
            if row["kind_hint"] == "memory_skill":
                kind = "a skill" if row["target"].startswith("skill:") else "a memory entry"
                extra = f"It is {kind} in {where}, not something said in any session."
            elif row["kind_hint"] == "cross_lingual" and row["language"] != "en":
                lang = LANGUAGES.get(row["language"], row["language"])
                extra = f"The whole conversation is in {lang}; the query about it is to be asked in English."
            elif row.get("supersedes"):
                extra = "It replaces the value recorded in an earlier session."
            elif row.get("superseded_by"):
                extra = "A later session changed this, so it is the outdated value."
            elif row["profile"] != "default":
                extra = f"It is only in {where}'s history."
            else:
                extra = "It is in the root home's history."
            row["summary"] = row["summary"].rstrip() + " " + extra
        return rows

    def _summary_rows(self) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        newer = {o.key: s for s in self.sessions for o in s.supersedes}
        for sess in sorted((s for s in self.sessions if s.hint), key=lambda s: (s.profile or "", s.start)):
            row: dict[str, Any] = {
                "target": sess.id,
                "profile": sess.profile or "default",
                "language": sess.lang,
                "kind_hint": sess.hint,
                "summary": sess.summary,
            }
            if sess.supersedes:
                row["supersedes"] = [o.id for o in sess.supersedes]
            if sess.key in newer:
                row["superseded_by"] = newer[sess.key].id
            rows.append(row)
        entries: dict[str, int] = {}
        for note in self.notes:
            row = {
                "target": note.target,
                "profile": note.profile or "default",
                "language": "en",
                "kind_hint": "memory_skill",
                "summary": note.summary,
                "file": note.path,
            }
            if note.path.startswith("memories/"):  # which §-delimited entry of the file, from 1
                entries[note.target] = row["entry"] = entries.get(note.target, 0) + 1
            rows.append(row)
        return rows

    def note_files(self) -> dict[tuple[str | None, str], str]:
        """The memory and skill files to write: (profile, path under its home) -> text."""
        from_entries: dict[tuple[str | None, str], list[str]] = {}
        files: dict[tuple[str | None, str], str] = {}
        for note in self.notes:
            if note.path.startswith("memories/"):
                from_entries.setdefault((note.profile, note.path), []).append(note.text)
            else:
                files[(note.profile, note.path)] = note.text
        for key, entries in from_entries.items():
            files[key] = ENTRY_DELIMITER.join(entries)  # as tools/memory_tool.py writes them
        return files

    @staticmethod
    def _check_words(q: Query) -> list[str]:
        """Every word of a literal query is in its target (and, for an updated fact, in the older ones).

        Kinds that are about finding words (keyword, tool_output, cjk, updated_fact, profile) must not also
        test synonyms: each ASCII word of the query is a word of the session's text, each CJK token a
        substring of it. A path query is a substring of the target's tool-call arguments.
        """
        if q.kind == "path":
            want = q.query.replace("~/", "/home/dev/")
            return [
                f"{q.query!r}: not in the arguments of {t.key}"
                for t in q.targets
                if want not in t.text_of("call")
            ]
        if q.kind not in ("keyword", "tool_output", "cjk", "updated_fact", "profile"):
            return []
        roles = ("user", "assistant") if q.kind == "keyword" else ("user", "assistant", "call", "tool")
        problems = []
        for sess in [*q.targets, *q.older]:
            text = sess.text_of(*roles).casefold()
            words = set(re.findall(r"\w+", text))
            for token in q.query.casefold().split():
                for word in re.findall(r"\w+", token):
                    missing = word not in text if re.search(r"[^\x00-\x7f]", word) else word not in words
                    if missing:
                        problems.append(f"{q.query!r}: {word!r} is not in {sess.key}")
        return problems

    def query_rows(self) -> list[dict[str, Any]]:
        rows = []
        counters = {k: 0 for k in KINDS}
        for q in self.queries:
            counters[q.kind] += 1
            row: dict[str, Any] = {
                "id": f"{q.kind}-{counters[q.kind]:02d}",
                "kind": q.kind,
                "query": q.query,
                "targets": [t.id for t in q.targets],
            }
            if q.profile:
                row["profile"] = q.profile
            if q.older:
                row["superseded"] = [o.id for o in q.older]
            if q.note:
                row["note"] = q.note
            rows.append(row)
        return rows
