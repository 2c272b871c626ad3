"""The search index: every turn, command, edit and tool output of every store, searchable in milliseconds."""
