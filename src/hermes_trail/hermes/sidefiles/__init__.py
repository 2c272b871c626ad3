"""Readers of the files Hermes keeps beside ``state.db``, one module per store.

Each reader takes a path that :mod:`hermes_trail.hermes.locate` listed and returns what the file holds in
Hermes' own shape, with every line, entry or file it could not read as a
:class:`~hermes_trail.model.Stray` (``kind`` ``file``, ``line`` or ``record``) that says what and where;
none of them raises for bad data, and none writes anything. What the records mean on a timeline is
:mod:`hermes_trail.timeline`'s business, not theirs.

- :mod:`.snapshots`: ``state-snapshots/<id>/state.db``, Hermes' quick snapshots (``hermes backup --quick``,
  ``/snapshot``, before ``hermes update``), read with the same store reader as ``state.db``.
- :mod:`.diverts`: ``sessions/<id>.jsonl``, the messages a replaced ``state.db`` never received.
- :mod:`.prompt_history`: ``.hermes_history``, every typed line of the classic CLI and the TUI.
- :mod:`.cron_output`: ``cron/output/<job>/<time>.md``, one document per cron run.
- :mod:`.response_store`: ``response_store.db``, the API server's Responses history.
- :mod:`.trajectories`: ``trajectory_samples.jsonl`` / ``failed_trajectories.jsonl`` in project directories.
- :mod:`.config_yaml`: ``config.yaml``'s ``command_allowlist`` (and ``timezone``), and nothing else of it.
- :mod:`.pairing`: ``pairing/<platform>-approved.json`` (and ``platforms/pairing/``).
- :mod:`.desktop`: the desktop app's ``connections.json``, without its tokens and headers.
- :mod:`.pastes`: ``pastes/pending.json``, the debug reports uploaded and still due for deletion.
- :mod:`.state_tables`: the ``state.db`` tables beside the transcript: deletion fences in ``state_meta``,
  ``conversation_generations`` and the Bot Mode ``hosted_room_events``.
"""
