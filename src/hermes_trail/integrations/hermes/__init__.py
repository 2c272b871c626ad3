"""hermes-trail inside Hermes Agent: a plugin (recall before each prompt, past fixes on a failing command, a
``/trail`` command), a memory provider named ``trail``, a skill, and the installer that puts them, with an
``mcp_servers`` entry for ``trail mcp``, into a Hermes home.

The plugin and the provider run in Hermes' own Python, so they, and everything of hermes-trail they import,
use only the standard library and packages Hermes itself depends on (``rich``): never typer, platformdirs
or mcp. Importing this package does nothing.
"""
