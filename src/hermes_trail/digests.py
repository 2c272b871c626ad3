"""The digests trail makes at a command's start, without loading OpenSSL's hashes.

``hashlib`` loads ``_hashlib`` (OpenSSL) when imported: about 2.5 ms of every command's start on a
two-core machine. The fingerprints trail makes as it starts are BLAKE2b, and a scoped index is named by a
SHA-256; ``hashlib`` itself takes both from CPython's own modules when OpenSSL lacks them, so these are the
same functions giving the same digests. A build without those modules gets them through ``hashlib``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hashlib import blake2b, sha256
else:

    def _own(modules: tuple[str, ...], name: str) -> Any:
        """``name`` from the first of CPython's ``modules`` there is, else from ``hashlib``."""
        for module in modules:
            try:
                return getattr(__import__(module), name)
            except ImportError:
                continue
        import hashlib

        return getattr(hashlib, name)

    blake2b = _own(("_blake2",), "blake2b")
    sha256 = _own(("_sha2", "_sha256"), "sha256")  # _sha2 since Python 3.12

__all__ = ["blake2b", "sha256"]
