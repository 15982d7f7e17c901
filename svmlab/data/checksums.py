"""sha256 checksums of dataset files, cached per (path, mtime, size)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from svmlab.errors import ChecksumError

_checksums: dict = {}


def file_sha256(path) -> str:
    """sha256 of a file, cached per (path, mtime, size) so repeated loads are cheap."""
    path = Path(path)
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _checksums:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        _checksums[key] = digest.hexdigest()
    return _checksums[key]


def check_sha256(path, expected: str) -> None:
    """Raise :class:`ChecksumError` naming ``path`` unless its sha256 is ``expected``."""
    actual = file_sha256(path)
    if actual != expected:
        raise ChecksumError(path, expected, actual)


def clear_checksums() -> None:
    """Forget the cached checksums (tests that rewrite files in place)."""
    _checksums.clear()
