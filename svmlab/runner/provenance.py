"""Where a result came from: versions, commit, host."""

from __future__ import annotations

import platform
import socket
import subprocess
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version

from svmlab.paths import REPO_ROOT

KEY_PACKAGES = ("numpy", "scipy", "scikit-learn", "pandas", "pyarrow", "joblib")


@lru_cache(maxsize=1)
def git_commit() -> str:
    """The checkout's commit (with ``+dirty`` for uncommitted changes), or '' outside git."""
    try:
        out = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
        if out.returncode != 0:
            return ""
        dirty = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return ""


def _version(pkg: str) -> str:
    try:
        return version(pkg)
    except PackageNotFoundError:
        return ""


@lru_cache(maxsize=1)
def provenance() -> dict:
    """Provenance columns stored with every result row (prefixed ``prov_`` there)."""
    info = {
        "svmlab": _version("svmlab"),
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "host": socket.gethostname(),
        "platform": platform.platform(terse=True),
    }
    info.update({pkg.replace("-", "_"): _version(pkg) for pkg in KEY_PACKAGES})
    return info
