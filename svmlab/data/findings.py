"""What the content of a registered dataset holds besides its checksum: its duplicated rows or
bags (:mod:`svmlab.data.duplicates`), cached per published file.

The findings of a file dataset are stored under the user cache
(``<cache>/findings/duplicates-<key>.json``), keyed by its registry entry -- the published
file's sha256 and everything svmlab derives from it (reader options, subsets, relabelling) --
and by :data:`VERSION`. So they stay valid while the published file and its entry do, whether
or not a copy is at hand, and ``svmlab data info``, a second ``svmlab data verify`` and the
reproduction reports do not read the file again. Bundled and synthetic sets (small, made in
memory) are checked each time and not stored.

Duplicates are findings, not failures: the published files are the data the papers used.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .. import paths
from ..errors import SvmlabError
from . import registry
from .dataset import Dataset
from .duplicates import Duplicates, find_duplicates

#: Bumped when :mod:`svmlab.data.duplicates` changes what it finds (older entries are ignored).
VERSION = 1


def dataset_duplicates(
    name: str, dataset: Dataset | None = None, *, load: bool = True
) -> Duplicates | None:
    """The duplicated rows or bags of registered dataset ``name``.

    Parameters
    ----------
    name : str
        Registry name or alias.
    dataset : Dataset, optional
        The dataset as read (checksum verified), when the caller has it: checked (unless
        stored) instead of loading it.
    load : bool, default=True
        Load the dataset when the findings are not stored and ``dataset`` is not given.

    Returns
    -------
    Duplicates or None
        None when nothing is stored and the data cannot be read here (no file, no local
        copy, a checksum mismatch) or ``load`` is False.
    """
    key = cache_key(name)
    if key is not None:
        stored = _read(cache_file(key))
        if stored is not None:
            return stored
    if dataset is None:
        if not load:
            return None
        try:
            dataset = registry.load_dataset(name)
        except SvmlabError:
            return None
    found = find_duplicates(dataset)
    if key is not None:
        _write(cache_file(key), found)
    return found


def duplicates_text(name: str) -> str:
    """``svmlab data info``'s line: the findings, or why the data were not checked.

    With conflicting labels it adds what they cost: ``...; one model misclassifies at least 10
    of the 200 bags (accuracy <= 95.0 %)``.
    """
    found = dataset_duplicates(name)
    if found is not None:
        text = found.describe()
        if found.unavoidable:
            ceiling = 100.0 * (1 - found.unavoidable / found.n)
            text += (
                f"; one model misclassifies at least {found.unavoidable} of the {found.n} "
                f"{found.unit} (accuracy <= {ceiling:.1f} %)"
            )
        return text
    info = registry.dataset_info(name)
    if info["status"] == "unavailable":
        return "not checked: no data"
    return f"not checked: the file is not here (svmlab data fetch {info['name']})"


def duplicates_note(name: str, *, load: bool = True) -> str | None:
    """A report's note on dataset ``name`` when it has duplicates, else None: ``tiger has 20
    duplicated bags (bags 0-19 = 180-199), 10 with opposite labels (svmlab data info
    tiger)``.

    Synthetic sets get none: a run draws them with its own parameters. A name that is not
    registered gets none either.
    """
    try:
        if registry.registry_entry(name)["source"] == "synthetic":
            return None
        found = dataset_duplicates(name, load=load)
    except SvmlabError:
        return None
    if found is None or not found.groups:
        return None
    canonical = registry.resolve(name)
    return f"{canonical} has {found.describe()} (svmlab data info {canonical})"


def cache_key(name: str) -> str | None:
    """The key of the stored findings of a file or joined dataset (None for the others)."""
    entry = registry.registry_entry(name)
    if entry["source"] == "file":
        entries = [entry]
    elif entry["source"] == "joined":
        entries = [entry, *(registry.registry_entry(p) for p in entry["parts"].values())]
    else:
        return None
    text = json.dumps({"version": VERSION, "entries": entries}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def cache_file(key: str) -> Path:
    """Where the findings of ``key`` are stored."""
    return paths.cache_dir() / "findings" / f"duplicates-{key}.json"


def _read(path: Path) -> Duplicates | None:
    try:
        return Duplicates.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):  # absent or unreadable: check again
        return None


def _write(path: Path, found: Duplicates) -> None:
    """Store ``found`` (a temporary file renamed onto ``path``); a cache that cannot be
    written is left alone: the findings are then checked again next time."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(found.to_dict(), fh)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass
