"""``memories/MEMORY.md``, ``memories/USER.md`` and ``skills/**/SKILL.md``: what Hermes keeps as knowledge.

Each home (the root and every ``profiles/<name>/``) has its own: Hermes resolves both under
``get_hermes_home()``, so a profile's memory and skills are its own, and a profile whose sessions live in
PostgreSQL still keeps them on disk.

- Memory (``tools/memory_tool.py``, ``MemoryStore``): each file is a list of entries joined by
  ``ENTRY_DELIMITER`` (``"\\n§\\n"``), an entry may span lines; ``MEMORY.md`` holds the agent's own notes,
  ``USER.md`` what it knows about the user. Read as ``MemoryStore._read_file`` reads: split on the whole
  delimiter (a ``§`` inside an entry is text), each entry stripped, blank ones dropped.
- Skills (``tools/skill_manager_tool.py``): ``skills/<name>/SKILL.md`` or
  ``skills/<category>/<name>/SKILL.md``, YAML front matter with ``name`` and ``description`` between
  ``---`` lines, then Markdown. Found as ``agent.skill_utils.iter_skill_index_files`` finds them: Hermes'
  metadata and dependency directories and a skill's own ``references/``, ``templates/``, ``assets/``,
  ``scripts/`` are not walked.

Skills Hermes did not write are left out: a bundled skill ``tools/skills_sync.py`` copied in and nobody
changed since (its directory hash is still the origin hash ``skills/.bundled_manifest`` records) and a skill
the hub installed (``skills/.hub/lock.json``). Listing only ``stat``s files; nothing here writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, ClassVar

from hermes_trail.hermes.sidefiles.common import file_stray, read_text
from hermes_trail.model import Stray, _Frozen, _Record

MEMORIES_DIR = "memories"
MEMORY_FILES = ("MEMORY.md", "USER.md")
ENTRY_DELIMITER = "\n§\n"  # tools/memory_tool.py
SKILLS_DIR = "skills"
SKILL_FILE = "SKILL.md"
BUNDLED_MANIFEST = ".bundled_manifest"  # tools/skills_sync.py
HUB_LOCK = (".hub", "lock.json")  # tools/skills_hub.py
# agent/skill_utils.py: directories no skill scanner walks, and a skill's own support directories.
EXCLUDED_DIRS = frozenset(
    {
        ".git",
        ".github",
        ".hub",
        ".archive",
        ".venv",
        "venv",
        "node_modules",
        "site-packages",
        "__pycache__",
        ".tox",
        ".nox",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
    }
)
SUPPORT_DIRS = frozenset({"references", "templates", "assets", "scripts"})
# A skill's SKILL.md larger than this is not Hermes' doing (its own limit is 100,000 characters).
MAX_SKILL_BYTES = 4 * 1024 * 1024


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class KnowledgeFile(_Frozen):
    """A memory file or a skill's ``SKILL.md`` as listed (stat only), with what tells that it changed.

    :param kind: ``memory`` or ``skill``.
    :param name: ``MEMORY.md``/``USER.md``, or the skill's directory relative to ``skills/``
        (``devops/deploy-staging``).
    """

    _fields: ClassVar[tuple[str, ...]] = ("kind", "name", "path", "size", "mtime_ns")
    __slots__ = _fields
    kind: str
    name: str
    path: Path
    size: int
    mtime_ns: int

    def __init__(self, kind: str, name: str, path: Path, size: int, mtime_ns: int) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "mtime_ns", mtime_ns)

    @property
    def fingerprint(self) -> str:
        return f"{self.size}:{self.mtime_ns}"

    @property
    def mtime(self) -> float:
        return self.mtime_ns / 1e9


class Skill(_Record):
    """A parsed ``SKILL.md``: its front matter's name and description, and its Markdown sections (the
    text before the first heading, then each heading with what follows it, up to the next)."""

    _fields: ClassVar[tuple[str, ...]] = ("name", "description", "sections")
    __slots__ = _fields
    name: str
    description: str
    sections: list[str]

    def __init__(self, name: str, description: str, sections: list[str] | None = None) -> None:
        self.name = name
        self.description = description
        self.sections = [] if sections is None else sections


def _stat(kind: str, name: str, path: Path) -> KnowledgeFile | None:
    try:
        st = path.stat()
    except OSError:
        return None
    if not path.is_file():
        return None
    return KnowledgeFile(kind, name, path, st.st_size, st.st_mtime_ns)


def _skill_files(skills: Path) -> list[Path]:
    """Every active ``SKILL.md`` under ``skills``, pruned as Hermes prunes (sorted, symlinks followed)."""
    found: list[Path] = []
    seen: set[str] = set()
    for root, dirs, files in os.walk(skills, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:  # a symlink loop
            dirs[:] = []
            continue
        seen.add(real)
        has_skill = SKILL_FILE in files
        dirs[:] = sorted(d for d in dirs if d not in EXCLUDED_DIRS and not (has_skill and d in SUPPORT_DIRS))
        if has_skill and Path(root) != skills:
            found.append(Path(root) / SKILL_FILE)
    return sorted(found)


def knowledge_files(home: Path) -> list[KnowledgeFile]:
    """The memory files and skills of one home, in a stable order; only ``stat`` calls, no file read."""
    out: list[KnowledgeFile] = []
    for name in MEMORY_FILES:
        if (found := _stat("memory", name, home / MEMORIES_DIR / name)) is not None:
            out.append(found)
    skills = home / SKILLS_DIR
    for path in _skill_files(skills):
        if (found := _stat("skill", path.parent.relative_to(skills).as_posix(), path)) is not None:
            out.append(found)
    return out


def provenance_files(home: Path) -> list[KnowledgeFile]:
    """The files that say which skills Hermes did not write (the bundled manifest, the hub's lock)."""
    skills = home / SKILLS_DIR
    found = [
        _stat("provenance", BUNDLED_MANIFEST, skills / BUNDLED_MANIFEST),
        _stat("provenance", "/".join(HUB_LOCK), skills.joinpath(*HUB_LOCK)),
    ]
    return [f for f in found if f is not None]


def read_memory(path: Path) -> tuple[list[str], list[Stray]]:
    """The entries of a memory file as Hermes' ``MemoryStore`` reads them, and why it could not be read."""
    text, problem = read_text(path)
    if text is None:
        return [], [problem] if problem else []
    if not text.strip():
        return [], []
    entries = [e.strip() for e in text.split(ENTRY_DELIMITER)]
    return [e for e in entries if e], []


_FENCE_END = re.compile(r"\n---\s*\n")
_HEADING = re.compile(r"^#{1,6}\s")
_CODE_FENCE = re.compile(r"^\s*(```|~~~)")


def _front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter and the body, as ``agent.skill_utils.parse_frontmatter`` splits them."""
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        return {}, text
    end = _FENCE_END.search(text[3:])
    if end is None:
        return {}, text
    head, body = text[3 : end.start() + 3], text[end.end() + 3 :]
    import yaml

    try:
        parsed = yaml.safe_load(head)
    except yaml.YAMLError:
        parsed = None
    if isinstance(parsed, dict):
        return parsed, body
    fields: dict[str, Any] = {}  # Hermes falls back to plain ``key: value`` lines
    for line in head.strip().split("\n"):
        key, colon, value = line.partition(":")
        if colon:
            fields[key.strip()] = value.strip()
    return fields, body


def _sections(body: str) -> list[str]:
    """The body cut before each Markdown heading outside a code block; blank parts dropped."""
    parts: list[list[str]] = [[]]
    fenced = False
    for line in body.split("\n"):
        if _CODE_FENCE.match(line):
            fenced = not fenced
        elif not fenced and _HEADING.match(line) and any(x.strip() for x in parts[-1]):
            parts.append([])
        parts[-1].append(line)
    return [text for part in parts if (text := "\n".join(part).strip())]


def read_skill(path: Path) -> tuple[Skill | None, list[Stray]]:
    """A ``SKILL.md`` parsed (its name is the front matter's, else its directory's), or why not."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        return None, [file_stray(path, f"unreadable file ({exc.strerror or exc})")]
    if size > MAX_SKILL_BYTES:
        return None, [file_stray(path, f"unreadable file ({size} bytes is too large for a skill)")]
    text, problem = read_text(path)
    if text is None:
        return None, [problem] if problem else []
    fields, body = _front_matter(text)
    name = str(fields.get("name") or "").strip() or path.parent.name
    description = str(fields.get("description") or "").strip()
    return Skill(name, description, _sections(body)), []


def _dir_hash(directory: Path) -> str:
    """``tools/skills_sync.py`` ``_dir_hash``: MD5 over every file's relative path and bytes, sorted."""
    digest = hashlib.md5(usedforsecurity=False)
    try:
        for path in sorted(directory.rglob("*")):
            if path.is_file():
                digest.update(str(path.relative_to(directory)).encode("utf-8"))
                digest.update(path.read_bytes())
    except OSError:
        pass
    return digest.hexdigest()


class Provenance(_Record):
    """Which skills of a home Hermes did not write: bundled copies (name to origin hash) and hub installs."""

    _fields: ClassVar[tuple[str, ...]] = ("bundled", "hub")
    __slots__ = _fields
    bundled: dict[str, str]
    hub: set[str]

    def __init__(self, bundled: dict[str, str] | None = None, hub: set[str] | None = None) -> None:
        self.bundled = {} if bundled is None else bundled
        self.hub = set() if hub is None else hub

    def not_written(self, skill_dir: Path) -> bool:
        """Whether the skill in ``skill_dir`` is a hub install or an unchanged bundled copy."""
        name = skill_dir.name
        if name in self.hub:
            return True
        origin = self.bundled.get(name)
        return bool(origin) and _dir_hash(skill_dir) == origin


def read_provenance(home: Path) -> Provenance:
    """The bundled manifest (``name:hash`` lines; a v1 line without a hash is never taken as unchanged)
    and the hub's lock (``installed`` names) of one home; what cannot be read says nothing."""
    out = Provenance()
    skills = home / SKILLS_DIR
    text, _ = read_text(skills / BUNDLED_MANIFEST) if (skills / BUNDLED_MANIFEST).is_file() else (None, None)
    for line in (text or "").splitlines():
        name, _, origin = line.strip().partition(":")
        if name.strip():
            out.bundled[name.strip()] = origin.strip()
    lock = skills.joinpath(*HUB_LOCK)
    text, _ = read_text(lock) if lock.is_file() else (None, None)
    try:
        data = json.loads(text) if text else None
    except ValueError:
        data = None
    installed = data.get("installed") if isinstance(data, dict) else None
    if isinstance(installed, dict):
        out.hub = {str(name) for name in installed}
    return out
