"""The fleet: many machines' indexes shared in one PostgreSQL database (``trail share``, ``--fleet``).

Each module does one job: :mod:`.connection` opens the database without ever showing the DSN's password,
:mod:`.schema` creates and migrates the shared tables and the roles, :mod:`.push` copies this machine's
index there (:mod:`.pushing` from a process that runs on: the plugin, ``trail mcp --push``),
:mod:`.search` answers a search from it, :mod:`.fix`, :mod:`.blame` and :mod:`.how` those questions (by the
local index's rules), :mod:`.serialize` their ``--json``. The surfaces reach them
through ``service.Trail(fleet=DSN)``. See docs/fleet.md.
"""
