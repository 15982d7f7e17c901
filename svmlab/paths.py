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


#: The limits of most file systems when ``os.pathconf`` cannot tell: bytes per name, per path.
NAME_MAX, PATH_MAX = 255, 4096


def shortened(text: str, keep: int = 40) -> str:
    """``text``, or its start and its length when it is long (a 300-byte name in a message).

    >>> shortened("a" * 300, keep=5)
    'aaaaa... (300 characters)'
    """
    return text if len(text) <= keep + 20 else f"{text[:keep]}... ({len(text)} characters)"


def path_limits(path) -> tuple[int, int]:
    """Bytes per name and per path on the file system that holds (or would hold) ``path``."""
    where = Path(path).absolute()
    while not os.path.exists(where):  # False, not an error, for a name too long to look up
        where = where.parent
    try:
        return os.pathconf(where, "PC_NAME_MAX"), os.pathconf(where, "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):  # no pathconf (Windows) or no answer
        return NAME_MAX, PATH_MAX


def too_long(path) -> str | None:
    """Why ``path`` cannot exist on its file system - a name over the file system's bytes
    per name (255 on most) or the whole path over its limit - or None when it can.

    >>> too_long("results/" + "a" * 300).endswith("has 300 bytes, the file system allows 255")
    True
    >>> too_long("results/run1") is None
    True
    """
    name_max, path_max = path_limits(path)
    for part in Path(path).parts:
        size = len(os.fsencode(part))
        if size > name_max:
            return f"the name {shortened(part)} has {size} bytes, the file system allows {name_max}"
    size = len(os.fsencode(str(Path(path).absolute())))
    if size >= path_max:
        return f"the path has {size} bytes, the file system allows {path_max - 1}"
    return None
