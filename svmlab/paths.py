"""Where svmlab finds its own files, in a checkout and in an installed wheel."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
#: The checkout's root (parent of ``svmlab/``); meaningful only when running from a checkout.
REPO_ROOT = PACKAGE_DIR.parent


def conf_dir() -> Path:
    """Directory of the Hydra configs: ``svmlab/_conf`` in a wheel, ``conf/`` in a checkout."""
    for candidate in (PACKAGE_DIR / "_conf", REPO_ROOT / "conf"):
        if (candidate / "config.yaml").is_file():
            return candidate
    raise FileNotFoundError(
        "svmlab's Hydra configuration (conf/config.yaml) is missing from this installation"
    )


def registry_file() -> Path:
    """The dataset registry: ``svmlab/_datasets/registry.yaml`` in a wheel,
    ``datasets/registry.yaml`` in a checkout."""
    for candidate in (
        PACKAGE_DIR / "_datasets" / "registry.yaml",
        REPO_ROOT / "datasets" / "registry.yaml",
    ):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        "svmlab's dataset registry (datasets/registry.yaml) is missing from this installation"
    )


def repo_datasets_dir() -> Path | None:
    """The checkout's ``datasets/`` folder, or None in an installed wheel."""
    d = REPO_ROOT / "datasets"
    return (
        d if (d / "registry.yaml").is_file() and not (PACKAGE_DIR / "_datasets").is_dir() else None
    )


def data_dirs() -> list[Path]:
    """Directories named by ``SVMLAB_DATA_DIR`` (colon-separated), in order."""
    raw = os.environ.get("SVMLAB_DATA_DIR", "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]


def cache_dir() -> Path:
    """The user cache for downloaded datasets (``SVMLAB_CACHE_DIR`` overrides)."""
    override = os.environ.get("SVMLAB_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    import pooch

    return Path(pooch.os_cache("svmlab"))
