"""The TLS settings Hermes' processes run with in the tests: a trust store of one certificate and Hermes'
own switch for its CA-bundle check (``HERMES_SKIP_SSL_GUARD``).

Hermes builds TLS contexts as it starts and at every client it makes (its CA-bundle guard, httpx, the
OpenAI client), each parsing certifi's whole bundle: a third of the time of an agent turn in these tests,
which only ever talk plain HTTP to a loopback model. Nothing Hermes writes depends on it.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_STORE = _HERE.parent / ".cache" / "tls" / "one-certificate.pem"


def light_tls_env() -> dict[str, str]:
    """``SSL_CERT_FILE`` at a trust store holding certifi's first certificate (written once, atomically),
    and ``HERMES_SKIP_SSL_GUARD``; nothing when certifi is not there."""
    if not _STORE.is_file():
        try:
            import certifi
        except ImportError:
            return {}
        bundle = Path(certifi.where()).read_text(encoding="ascii", errors="replace")
        first = re.search(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----\n", bundle, re.S)
        if first is None:
            return {}
        _STORE.parent.mkdir(parents=True, exist_ok=True)
        # A draft of its own for each caller: the corpus generator's threads share a process id, and one
        # renamed the draft another was about to rename (FileNotFoundError on a fresh clone's first run).
        handle, draft = tempfile.mkstemp(dir=_STORE.parent, prefix=f"{_STORE.name}.")
        with os.fdopen(handle, "w", encoding="ascii") as out:
            out.write(first.group(0))
        Path(draft).replace(_STORE)
    return {"SSL_CERT_FILE": str(_STORE), "HERMES_SKIP_SSL_GUARD": "1"}
