"""``trail mcp``: hermes-trail's questions as MCP tools, a thin surface over
:class:`~hermes_trail.service.Trail`.

:mod:`~hermes_trail.mcp.tools` says what each tool is and answers it without the MCP SDK;
:mod:`~hermes_trail.mcp.server` puts the tools on the official SDK's server, over stdio or streamable HTTP.
"""
