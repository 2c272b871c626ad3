"""Who can reach a server trail runs (the MCP server over HTTP, the web viewer): loopback told apart from
the network, and the bearer token that guards a server the network can reach. One rule for both."""

from __future__ import annotations

import ipaddress
import secrets

from hermes_trail.errors import TrailError

# A bearer token shorter than this is refused: it guards a person's whole history on the network, and
# new_token() makes 43 characters.
MIN_TOKEN_CHARS = 32


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host``: ``localhost`` or a loopback address (``[::1]`` too)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A bearer token for a server other machines can reach (32 random bytes)."""
    return secrets.token_urlsafe(32)


def check_token(token: str) -> None:
    """Refuse a token given by a person that is too short to be guess-proof."""
    if len(token.strip()) < MIN_TOKEN_CHARS or len(set(token)) < 8:
        raise TrailError(
            f"the token is too short to protect the history: give at least {MIN_TOKEN_CHARS} random "
            "characters (for one: python -c 'import secrets; print(secrets.token_urlsafe(32))'), or leave "
            "it out on loopback"
        )
