"""Session classes: what kind of session a row is, who it talked to, where it came from, where it ran.

``kind`` is one label, the first of these that the row shows (precedence, strongest provenance first):

1. ``imported``: ``origin_json`` holds ``imported_from`` (Hermes' importers,
   ``hermes_cli/foreign_sessions.import_foreign_session`` and ``SessionDB.import_foreign_history``, write
   ``{"imported_from": {"tool", "path", "foreign_session_id"}}`` and the tool as ``source``), or the
   source is one of those tools (``claude-code``, ``codex-cli``). Whatever else the row says describes
   the copy, not the conversation, so this comes first.
2. ``bot_chat``: the title is exactly ``Bot Chat``. Hermes resolves a bot's canonical chat by that exact
   title alone (``SessionDB.CANONICAL_BOT_CHAT_TITLE``; ``gateway/run_turn.py`` notes the rows may be
   hidden or not), so ``hidden`` is not required.
3. ``cron``: the source is ``cron``, or the id is ``cron_<job>_<stamp>`` (``cron/scheduler.py``), or the
   run ended ``cron_complete`` or ``cron_incomplete_no_output``. An empty ``cwd`` alone is no sign:
   gateway sessions have none either.
4. ``subagent``: the source is ``subagent`` (``delegate_tool`` runs the child with that platform) or
   ``model_config`` holds ``_delegate_from`` (any value, ``"__orphaned__"`` included: Hermes' schema 16
   migration tags orphaned sub-agent runs so).
5. ``tool``: the source is ``tool`` (``hermes chat --source tool``, another agent driving Hermes).
6. ``messaging``: the source is a messaging platform of ``gateway/config.py``'s ``Platform``
   (:data:`MESSAGING_PLATFORMS`; ``local`` and ``api_server`` are not messaging), or ``origin_json``
   names a platform other than those two, or the row has a ``chat_id`` and a source that is none of
   Hermes' own front ends or automations (:data:`OWN_SOURCES`): a plugin platform such as ``irc``.
7. ``interactive``: everything else (CLI, TUI, desktop, API server, kanban workers).

``messaging`` and ``imported`` are filled whenever the row holds their evidence, whatever ``kind`` won:
``Messaging`` from the routing columns (``user_id``, ``chat_id``, ``chat_type``, ``thread_id``,
``display_name``, the chat's name) first and ``origin_json`` (the gateway's serialized ``SessionSource``:
``platform``, ``chat_name``, ``user_name``, ...) for what they lack.

``yolo`` is Hermes' own reading, ``SessionDB.session_yolo_enabled``: ``model_config.yolo_mode``, truthy.
It is the per-session ``/yolo`` of the CLI, TUI and desktop only; the gateway keeps a messaging session's
in its routing entry, and a process-wide ``--yolo`` or ``HERMES_YOLO_MODE`` is recorded nowhere.

A worktree session ran in a git worktree Hermes created inside the user's repository
(``hermes_cli/worktree_ops.py``: ``<repo>/.worktrees/<name>`` on branch ``hermes/<name>``;
``tools/subagent_worktree.py``: ``.worktrees/subagent-<id>`` on ``hermes-subagent/...``). When ``cwd`` is
such a tree or inside one and ``git_branch`` starts with one of those prefixes, ``worktree`` is the tree
and ``project`` the repository, so the work is filed under the repository it belongs to. A classic
``hermes -w`` row already holds the repository root, and a kanban child's branch is not fixed: neither is
a worktree here.
"""

from __future__ import annotations

import re
from typing import Any

from hermes_trail.hermes.decode.relations import MARKER_DELEGATE, SOURCE_SUBAGENT, SOURCE_TOOL, json_object
from hermes_trail.model import ImportOrigin, Messaging, Session

INTERACTIVE = "interactive"
MESSAGING = "messaging"
BOT_CHAT = "bot_chat"
CRON = "cron"
IMPORTED = "imported"
SUBAGENT = "subagent"
TOOL = "tool"

BOT_CHAT_TITLE = "Bot Chat"
CRON_ID_PREFIX = "cron_"
CRON_END_REASONS = frozenset({"cron_complete", "cron_incomplete_no_output"})
# hermes_cli/foreign_sessions.py _SOURCE_DB_NAMES: the sources an imported session is written with.
IMPORT_SOURCES = frozenset({"claude-code", "codex-cli"})
# gateway/config.py Platform, 0.19.0 and schema 31, less the two that are no messaging platform.
NOT_MESSAGING = frozenset({"local", "api_server"})
MESSAGING_PLATFORMS = frozenset(
    {
        "telegram",
        "discord",
        "whatsapp",
        "whatsapp_cloud",
        "slack",
        "signal",
        "mattermost",
        "matrix",
        "homeassistant",
        "email",
        "sms",
        "dingtalk",
        "webhook",
        "msgraph_webhook",
        "feishu",
        "wecom",
        "wecom_callback",
        "weixin",
        "bluebubbles",
        "qqbot",
        "yuanbao",
        "relay",
    }
)
# Sources Hermes' own front ends and automations write: a chat id on such a row names no platform.
OWN_SOURCES = frozenset(
    {"cli", "tui", "desktop", "webapp", "acp", "cron", "kanban", "subagent", "tool", "recovered"}
)
WORKTREE_BRANCH_PREFIXES = ("hermes/", "hermes-subagent/")
_WORKTREE = re.compile(r"[/\\]\.worktrees[/\\]([^/\\]+)")


def _text(value: Any) -> str | None:
    """An identifier as text: a non-empty string, or a number the JSON held as one."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _first(*values: Any) -> str | None:
    for value in values:
        if (text := _text(value)) is not None:
            return text
    return None


def messaging_of(session: Session, row: dict[str, Any], origin: dict[str, Any]) -> Messaging | None:
    """Who and where a gateway session talked to, or ``None`` when the row is no messaging session's."""
    source = (session.source or "").strip()
    origin_platform = _text(origin.get("platform"))
    chat_id = _first(row.get("chat_id"), origin.get("chat_id"))
    if source in MESSAGING_PLATFORMS:
        platform = source
    elif source in NOT_MESSAGING:
        return None
    elif origin_platform is not None and origin_platform not in NOT_MESSAGING:
        platform = origin_platform
    elif chat_id is not None and source and source not in OWN_SOURCES:
        platform = source  # a plugin platform: Platform("irc") and the like
    else:
        return None
    return Messaging(
        platform=platform,
        chat_id=chat_id,
        chat_name=_first(row.get("display_name"), origin.get("chat_name")),
        chat_type=_first(row.get("chat_type"), origin.get("chat_type")),
        user_id=_first(row.get("user_id"), origin.get("user_id")),
        user_name=_first(origin.get("user_name")),
        thread_id=_first(row.get("thread_id"), origin.get("thread_id")),
    )


def imported_of(session: Session, origin: dict[str, Any]) -> ImportOrigin | None:
    """Where an imported session's transcript came from, or ``None`` for a session Hermes ran itself."""
    found = origin.get("imported_from")
    if isinstance(found, dict):
        tool = _first(found.get("tool"), session.source) or "unknown"
        return ImportOrigin(
            tool=tool, path=_first(found.get("path")), original_id=_first(found.get("foreign_session_id"))
        )
    if session.source in IMPORT_SOURCES:
        return ImportOrigin(tool=session.source)
    return None


def worktree_of(cwd: str | None, git_branch: str | None) -> tuple[str, str] | None:
    """``(worktree, repository)`` when ``cwd`` lies in a worktree Hermes created, by the module's rule."""
    if not cwd or not git_branch or not git_branch.startswith(WORKTREE_BRANCH_PREFIXES):
        return None
    trees = list(_WORKTREE.finditer(cwd))
    if not trees:
        return None
    inner = trees[-1]  # a repository may sit inside another's worktree: the innermost tree is the one
    return cwd[: inner.end()], cwd[: inner.start()] or cwd[0]


def _is_cron(session: Session) -> bool:
    return (
        session.source == CRON
        or session.id.startswith(CRON_ID_PREFIX)
        or session.end_reason in CRON_END_REASONS
    )


def classify_session(session: Session, row: dict[str, Any]) -> None:
    """Set ``kind``, ``messaging``, ``imported``, ``worktree``, ``project`` and ``yolo`` from the row.

    A ``model_config`` or ``origin_json`` that is not a JSON object is read as empty, as Hermes reads it,
    and named in ``session.problems``.
    """
    config, problem = json_object(row.get("model_config"), "model_config")
    if problem:
        session.problems.append(problem)
    origin, problem = json_object(row.get("origin_json"), "origin_json")
    if problem:
        session.problems.append(problem)

    session.yolo = bool(config.get("yolo_mode"))
    session.imported = imported_of(session, origin)
    session.messaging = messaging_of(session, row, origin)
    tree = worktree_of(session.cwd, session.git_branch)
    if tree is not None:
        session.worktree, session.project = tree

    if session.imported is not None:
        session.kind = IMPORTED
    elif session.title == BOT_CHAT_TITLE:
        session.kind = BOT_CHAT
    elif _is_cron(session):
        session.kind = CRON
    elif session.source == SOURCE_SUBAGENT or config.get(MARKER_DELEGATE) is not None:
        session.kind = SUBAGENT
    elif session.source == SOURCE_TOOL:
        session.kind = TOOL
    elif session.messaging is not None:
        session.kind = MESSAGING
    else:
        session.kind = INTERACTIVE
