"""Get every file a study needs before it runs, and say in one line per file what is missing.

A study's datasets come from its composed configuration (:func:`config_datasets`: the
``datasets`` entries, or the single ``dataset``, and the ``unavailable_datasets`` it lists).
:func:`needed_files` turns dataset names into the registry's file entries (a joined set needs
its parts; bundled and synthetic sets need none) and the names documented as not obtainable.
:func:`prefetch` then checks each file (present and matching its sha256) and downloads the
missing ones when asked, one progress line per download; :func:`summary_lines` words the
outcome: a count, then one line per file it could not get, naming the dataset and why.

Used by ``svmlab data fetch --experiment/--document``, ``svmlab reproduce`` (before the first
study runs) and ``svmlab run`` (:func:`ensure_run_files`: fetch with
``data.allow_download=true``, otherwise one line naming the fetch command).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..errors import ChecksumError, DataUnavailableError, SvmlabError
from . import registry

#: Outcomes of one file: already verified here, downloaded now, or still missing.
HERE, FETCHED, MISSING = "here", "fetched", "missing"
#: More datasets not obtainable than this are named on one line, without their reasons.
MAX_NAMED = 12


@dataclass(frozen=True)
class FileOutcome:
    """What became of one needed file: ``status`` is ``here``, ``fetched`` or ``missing``;
    ``detail`` is the local path, or why the file is missing."""

    dataset: str
    path: str
    status: str
    detail: str


def _stderr(line: str) -> None:
    print(f"svmlab: {line}", file=sys.stderr, flush=True)


def config_datasets(cfg: dict) -> tuple[list[str], list[str]]:
    """``(datasets, unavailable)``: the dataset names a composed configuration runs and the
    ones it lists under ``unavailable_datasets``.

    ``datasets`` entries set to null are dropped (as the planner drops them); without any
    entry the single ``dataset`` node is the run's dataset.
    """
    many = cfg.get("datasets") or {}
    items = list(many.values()) if isinstance(many, dict) else list(many)
    items = [item for item in items if item is not None] or [cfg.get("dataset")]
    names = [item.get("name") if isinstance(item, dict) else item for item in items]
    unavailable = cfg.get("unavailable_datasets") or []
    unavailable = unavailable if isinstance(unavailable, list) else []
    # a malformed entry is left to the planner, which names it
    return [n for n in names if isinstance(n, str) and n], [str(n) for n in unavailable]


def needed_files(names: Iterable[str]) -> tuple[list[str], dict[str, str]]:
    """The file entries ``names`` need, and the datasets among them that cannot be had.

    Returns
    -------
    files : list of str
        Registry names of file entries, in first-use order, without repeats (the parts of a
        joined set stand for it).
    unobtainable : dict
        ``{name: reason}`` of the datasets registered as unavailable (no data known).

    Raises
    ------
    UnknownNameError
        A name is not in the registry.
    """
    files: dict[str, None] = {}
    unobtainable: dict[str, str] = {}
    for name in names:
        entry = registry.registry_entry(name)
        if entry["source"] == "file":
            files[entry["name"]] = None
        elif entry["source"] == "joined":
            parts, more = needed_files(entry["parts"].values())
            files.update(dict.fromkeys(parts))
            unobtainable.update(more)
        elif entry["source"] == "unavailable":
            unobtainable[entry["name"]] = entry["unavailable_reason"]
    return list(files), unobtainable


def has_download_source(entry: dict) -> bool:
    """Whether the file of registry ``entry`` can be downloaded (its URL, or the mirror)."""
    return bool(entry.get("url") or registry.download_base())


def missing_reason(name: str) -> str:
    """Why the file of ``name`` is not here: fetchable, or where to get it by hand."""
    entry = registry.registry_entry(name)
    if has_download_source(entry):
        return "not downloaded yet"
    kind, _, rest = (entry.get("origin") or "").partition(":")
    package = {"debian": "Debian", "pypi": "PyPI"}.get(kind)
    if package:
        where = f"the {package} package {rest.split(':')[0]}"
        return f"no download source: copy it from {where} into a directory of SVMLAB_DATA_DIR"
    return f"no download source: it {entry['unavailable_reason']}"


def _check_here(name: str) -> FileOutcome | None:
    """The outcome of a file found locally (verified), or None when there is no copy."""
    entry = registry.registry_entry(name)
    try:
        path = registry.locate(name)
    except DataUnavailableError:
        return None
    except ChecksumError as exc:
        return FileOutcome(name, entry["path"], MISSING, f"checksum mismatch: {exc.path}")
    return FileOutcome(name, entry["path"], HERE, str(path))


def prefetch(
    files: Iterable[str],
    *,
    download: bool = True,
    say: Callable[[str], None] = _stderr,
) -> list[FileOutcome]:
    """Check every file and download the missing ones (with ``download``), one line each.

    Parameters
    ----------
    files : iterable of str
        Registry names of file entries (:func:`needed_files`).
    download : bool, default=True
        Download a file that has no local copy from its registered source; without it a
        missing file is only reported.
    say : callable, default: a ``svmlab: ...`` line on standard error
        Receives the progress line of each download.

    Returns
    -------
    list of FileOutcome
        One per file, in order. A local copy whose sha256 differs is reported as missing
        (it is not replaced: lookup would find it first).
    """
    files = list(files)
    todo = []
    outcomes: dict[str, FileOutcome] = {}
    for name in files:
        found = _check_here(name)
        if found is None:
            todo.append(name)
        else:
            outcomes[name] = found
    fetchable = [n for n in todo if download and has_download_source(registry.registry_entry(n))]
    unreachable: set[str] = set()
    for name in todo:
        entry = registry.registry_entry(name)
        if name not in fetchable:
            outcomes[name] = FileOutcome(name, entry["path"], MISSING, missing_reason(name))
            continue
        i = fetchable.index(name) + 1
        outcomes[name] = _download(name, f"[{i}/{len(fetchable)}]", unreachable, say)
    return [outcomes[name] for name in files]


def _download(name: str, counter: str, unreachable: set, say) -> FileOutcome:
    """Download one file, unless an earlier download found its host unreachable (offline:
    the other files of that host are not tried, which could each wait for a time-out)."""
    from .fetch import HostUnreachableError  # pooch, imported when something is downloaded

    entry = registry.registry_entry(name)
    host = urlsplit(registry.download_base() or entry["url"]).netloc
    if host in unreachable:
        why = f"not tried: {host} was unreachable for an earlier file (offline?)"
        return FileOutcome(name, entry["path"], MISSING, why)
    say(f"fetching {counter} {name} ({entry['path']}, {_size(entry)})")
    try:
        path = registry.fetch(name)
    except HostUnreachableError as exc:
        unreachable.add(host)
        return FileOutcome(name, entry["path"], MISSING, str(exc))
    except SvmlabError as exc:
        return FileOutcome(name, entry["path"], MISSING, str(exc))
    return FileOutcome(name, entry["path"], FETCHED, str(path))


def _size(entry: dict) -> str:
    size = entry.get("bytes_raw") or entry.get("bytes")
    if not size:
        return "size unknown"
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{max(size / 1e3, 0.1):.1f} kB"


def summary_lines(outcomes: list[FileOutcome], unobtainable: dict[str, str]) -> list[str]:
    """A count line, then one line per missing file and one per dataset not obtainable."""
    count = {s: sum(o.status == s for o in outcomes) for s in (HERE, FETCHED, MISSING)}
    head = (
        f"{len(outcomes)} file(s) needed: {count[HERE]} already here, {count[FETCHED]} "
        f"fetched, {count[MISSING]} missing"
    )
    if unobtainable:
        head += f"; {len(unobtainable)} dataset(s) not obtainable"
    lines = [head]
    lines += [
        f"not fetched: {o.dataset} ({o.path}): {o.detail}" for o in outcomes if o.status == MISSING
    ]
    if len(unobtainable) > MAX_NAMED:
        names = ", ".join(unobtainable)
        lines.append(f"not obtainable: {names} (svmlab data info NAME gives each reason)")
    else:
        lines += [f"not obtainable: {name}: {why}" for name, why in unobtainable.items()]
    return lines


def ensure_run_files(cfg: dict, experiment: str | None, *, say=_stderr) -> None:
    """Before a run plans: with ``data.allow_download`` fetch every missing file of ``cfg``
    (progress and failures on ``say``); in both cases a needed file still missing is one
    :class:`DataUnavailableError` line naming the datasets and how to get them.

    ``experiment`` is the run's experiment (the ``+experiment=`` choice), named in the line;
    the fetch command names the missing files, which is right whatever overrides changed.
    """
    names, _ = config_datasets(cfg)
    files, _ = needed_files(n for n in names if _known(n))  # the planner names unknown ones
    download = bool((cfg.get("data") or {}).get("allow_download", False))
    if download:
        outcomes = prefetch(files, say=say)
        if any(o.status != HERE for o in outcomes):
            for line in summary_lines(outcomes, {}):
                say(line)
    else:
        outcomes = [
            FileOutcome(n, registry.registry_entry(n)["path"], MISSING, missing_reason(n))
            for n in files
            if registry.local_copy(n) is None
        ]
    missing = [o for o in outcomes if o.status == MISSING]
    if missing:
        raise DataUnavailableError(_missing_line(missing, experiment, download))


def _known(name: str) -> bool:
    try:
        registry.resolve(name)
    except SvmlabError:
        return False
    return True


def _missing_line(missing: list[FileOutcome], experiment: str | None, downloaded: bool) -> str:
    """One line: which files are missing and the command that gets them."""
    fetchable = [o.dataset for o in missing if o.detail == "not downloaded yet"]
    by_hand = [o for o in missing if o.detail != "not downloaded yet"]
    what = f"experiment {experiment!r}" if experiment else "this run"
    parts = [f"{what} needs {len(missing)} dataset file(s) that are not here"]
    if fetchable:
        parts.append(  # the files, not --experiment: overrides may have changed the datasets
            f"fetch with `svmlab data fetch {' '.join(fetchable)}` "
            "(or run with data.allow_download=true)"
        )
    parts += [f"{o.dataset}: {o.detail}" for o in by_hand]
    if downloaded and by_hand:
        parts[0] += " after fetching"
    return "; ".join(parts)
