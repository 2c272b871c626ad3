"""The forensic timeline: every row Hermes left behind, from every store and side file, in time order.

One row per message, tool call, result, model change, permission, relay, scratch directory, deletion and
past use of every side store, and one per line or record that could not be read, each with the 14 fields of
the doubleagent analyzer's ``timeline.jsonl`` and ``profile`` (docs/timeline.md). Built from the model and
the side-store readers only.
"""

from hermes_trail.timeline.build import FIELDS, Timeline, TimelineOptions, build_timeline

__all__ = ["FIELDS", "Timeline", "TimelineOptions", "build_timeline"]
