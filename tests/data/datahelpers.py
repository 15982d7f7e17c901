"""Helpers shared by the data tests (a module of its own: a conftest.py is not importable)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from svmlab.testing import benchmark_data_dir


def shared_data_dir() -> Path | None:
    """The first ``SVMLAB_DATA_DIR`` directory holding the benchmark MANIFEST.tsv, or None."""
    return benchmark_data_dir()


def serve(src, root, rel):
    """Copy ``src`` to ``root/rel`` (the folder a test server serves); the copy's path."""
    dest = root / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    return dest


def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def file_entry(name, rel, content_path, *, format="keel-dat", raw_path=None, **extra):
    """A registry entry describing the local file ``content_path`` stored at ``rel``."""
    digest = sha256(content_path)
    return {
        "name": name,
        "source": "file",
        "status": "ok",
        "task": "binary",
        "format": format,
        "path": rel,
        "sha256": digest,
        "sha256_raw": sha256(raw_path) if raw_path else digest,
        "rows": 4,
        "bags": None,
        "features": 2,
        "targets": None,
        "classes": 2,
        "read_options": {},
        "url": None,
        "aliases": [],
        "unavailable_reason": "is a test file",
        **extra,
    }


TINY_KEEL = "1.0, 2.0, a\n3.0, 4.0, b\n5.0, 6.0, a\n7.0, 8.0, b\n"
