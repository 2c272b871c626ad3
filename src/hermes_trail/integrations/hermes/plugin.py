"""The Hermes plugin ``hermes-trail``: Hermes calls :func:`register` with its plugin context.

- ``pre_llm_call``: before each prompt goes to the model, what past sessions say about it, as a framed,
  budgeted recall page appended to the prompt (Hermes puts plugin context in the user message, never in the
  system prompt). Silent when nothing matches, when the prompt has nothing to look for, and when the
  ``trail`` memory provider is loaded for the session (it recalls instead).
- ``transform_tool_result``: a ``terminal`` command that ran and failed gets a note of what fixed the same
  failure before, appended after Hermes' result JSON.
- ``/trail <what>``: the recall page for a person, in the chat.

Hermes loads it from ``$HERMES_HOME/plugins/hermes-trail/`` (put there by ``trail install hermes``) or from
the ``hermes_agent.plugins`` entry point of an installed hermes-trail, when ``plugins.enabled`` names
``hermes-trail``. Every hook returns within ``TRAIL_HERMES_DEADLINE`` seconds and never raises.
"""

from __future__ import annotations

import logging
from typing import Any

from hermes_trail.integrations.hermes import runtime
from hermes_trail.integrations.hermes.runtime import Recaller, Settings

PLUGIN_NAME = "hermes-trail"
COMMAND = "trail"
# A person asked and waits: the index is synced first, and the answer may take this long.
COMMAND_DEADLINE = 15.0
log = logging.getLogger("hermes_trail.hermes")


class Plugin:
    """The hooks and the command, over one :class:`Recaller`."""

    def __init__(
        self, recaller: Recaller | None = None, *, index: str | None = None, command: str | None = None
    ) -> None:
        self.recaller = recaller or Recaller(Settings.load(), index=index, command=command)

    def pre_llm_call(self, **kwargs: Any) -> dict[str, str] | None:
        """Recall for the prompt, as ``{"context": page}``; ``None`` for nothing."""
        try:
            if not self.recaller.settings.recall:
                return None
            session_id = kwargs.get("session_id") or None
            if runtime.provider_serves(session_id):
                return None  # the trail memory provider's prefetch recalls for this session
            prompt = runtime.prompt_text(kwargs.get("user_message"))
            page = self.recaller.recall(prompt, session_id)
            return {"context": page} if page else None
        except Exception as exc:  # a hook must never break the turn
            log.debug("hermes-trail: pre_llm_call failed: %s", exc)
            return None

    def transform_tool_result(self, **kwargs: Any) -> str | None:
        """A failing ``terminal`` result with what fixed the same failure before; ``None`` leaves it."""
        try:
            if not self.recaller.settings.fix or kwargs.get("tool_name") != "terminal":
                return None
            result = kwargs.get("result")
            error = runtime.failed_terminal(kwargs.get("args"), result)
            if not error or not isinstance(result, str):
                return None
            note = self.recaller.fix(error, kwargs.get("session_id") or None)
            return f"{result}\n\n{note}" if note else None
        except Exception as exc:
            log.debug("hermes-trail: transform_tool_result failed: %s", exc)
            return None

    def command(self, raw_args: str = "") -> str:
        """``/trail <what>``: the recall page, or how to use the command."""
        what = (raw_args or "").strip()
        if not what:
            return (
                "Usage: /trail <what to remember>: what past Hermes sessions say about it "
                f"(hermes-trail).\nIndex: {self.recaller.trail.index_path}"
            )
        trail = self.recaller.trail
        page = runtime.within(
            COMMAND_DEADLINE, lambda: trail.recall(what, budget=4096, timeout=COMMAND_DEADLINE), "command"
        )
        if page is None:
            return f"hermes-trail could not answer within {COMMAND_DEADLINE:g} s (the index may be building)."
        return page or f"Nothing on record about {what!r}."


def register(ctx: Any, *, index: str | None = None, command: str | None = None) -> Plugin:
    """Register the hooks and ``/trail`` on Hermes' plugin context; returns the plugin (for tests).
    ``index`` and ``command``: the index and the ``trail`` command install wrote for the home (the
    plugin's ``__init__.py`` passes them)."""
    plugin = Plugin(index=index, command=command)
    # Import what a first recall needs now, at start-up, not inside the first turn's deadline.
    import hermes_trail.index.fix
    import hermes_trail.index.search
    import hermes_trail.recall  # noqa: F401

    ctx.register_hook("pre_llm_call", plugin.pre_llm_call)
    ctx.register_hook("transform_tool_result", plugin.transform_tool_result)
    ctx.register_command(
        COMMAND,
        plugin.command,
        description="Recall what past Hermes sessions say",
        args_hint="<what to remember>",
    )
    return plugin
