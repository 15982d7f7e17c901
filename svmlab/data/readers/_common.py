"""Helpers shared by the file readers: opening (maybe compressed) files, labels, nominal codes."""

from __future__ import annotations

import bz2
import gzip
import zlib
from pathlib import Path

import numpy as np

from ...errors import DataFormatError

GZIP_MAGIC = b"\x1f\x8b"
BZIP2_MAGIC = b"BZh"
COMPRESSED_SUFFIXES = (".gz", ".bz2")


def read_bytes(path) -> bytes:
    """Return the content of ``path``, decompressed when it is gzip- or bzip2-compressed.

    A file is treated as gzip (bzip2) when its name ends in ``.gz`` (``.bz2``) or it
    starts with the gzip (bzip2) magic bytes, so a compressed file that lost its
    suffix still reads.
    """
    path = Path(path)
    raw = path.read_bytes()
    if raw[:2] == GZIP_MAGIC:
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise DataFormatError(path, f"corrupt gzip data: {exc}") from exc
    if path.suffix == ".gz":
        raise DataFormatError(path, "the name ends in .gz but the file is not gzip-compressed")
    if raw[:3] == BZIP2_MAGIC and (path.suffix == ".bz2" or raw[3:4].isdigit()):
        try:
            return bz2.decompress(raw)
        except (OSError, EOFError, ValueError) as exc:
            raise DataFormatError(path, f"corrupt bzip2 data: {exc}") from exc
    if path.suffix == ".bz2":
        raise DataFormatError(path, "the name ends in .bz2 but the file is not bzip2-compressed")
    return raw


def read_text(path) -> str:
    """Return the (decompressed) text of ``path`` with CRLF / CR line ends turned into LF."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")  # old ARFF/KEEL files are often Latin-1
    return text.replace("\r\n", "\n").replace("\r", "\n")


def stem(path) -> str:
    """File name without ``.gz``/``.bz2`` and its format extension.

    ``covtype.csv.gz`` -> ``covtype``, ``adult.trn.bz2`` -> ``adult``.
    """
    name = Path(path).name
    for suffix in COMPRESSED_SUFFIXES:
        name = name.removesuffix(suffix)
    return name.rsplit(".", 1)[0] if "." in name else name


def clean_labels(values, path, *, lines=None, what="label") -> np.ndarray:
    """Labels as in the file: numbers stay numbers (int64 when integral), strings are stripped.

    Parameters
    ----------
    values : sequence
        Raw labels (numbers or strings; ``None``/NaN marks a missing label).
    path : str or Path
        File the labels come from, for the error message.
    lines : array-like of int, optional
        File line number of each value, so an error can name the line.

    Returns
    -------
    ndarray of int64, float64 or str
    """
    arr = np.asarray(values)
    if arr.dtype.kind in "iuf":  # already numeric: no per-element work for large files
        numbers = arr.astype(np.float64)
        if np.isnan(numbers).any():
            _missing_error(path, np.isnan(numbers), lines, what)
        return numbers.astype(np.int64) if np.all(numbers == np.round(numbers)) else numbers
    arr = arr.astype(object)
    strings = np.array([v.strip() if isinstance(v, str) else v for v in arr], dtype=object)
    missing = np.array(
        [v is None or v == "" or (isinstance(v, float) and np.isnan(v)) for v in strings],
        dtype=bool,
    )
    if missing.any():
        _missing_error(path, missing, lines, what)
    try:
        numbers = strings.astype(np.float64)
    except (TypeError, ValueError):
        return strings.astype(str)
    if not np.all(np.isfinite(numbers)):  # e.g. a class literally called "inf"
        return strings.astype(str)
    return numbers.astype(np.int64) if np.all(numbers == np.round(numbers)) else numbers


def _missing_error(path, missing, lines, what):
    row = int(np.argmax(missing))
    if lines is not None:
        raise DataFormatError(path, f"missing {what}", line=int(lines[row]))
    raise DataFormatError(path, f"missing {what} in data row {row + 1}")


def classification_task(y) -> str:
    """``"binary"`` for at most two distinct labels, ``"multiclass"`` otherwise."""
    return "binary" if len(np.unique(y)) <= 2 else "multiclass"


def encode_levels(values, levels=None) -> tuple[np.ndarray, list[str]]:
    """Integer codes (as float64, NaN for missing) of nominal ``values``.

    Codes follow the order of ``levels`` (the declaration order of an ARFF nominal
    attribute) or, when no levels are declared, the sorted distinct values.
    Missing entries (``None``, NaN, ``""``, ``"?"``) become NaN.
    """
    vals = [v.strip() if isinstance(v, str) else v for v in values]
    present = [v for v in vals if not _is_missing(v)]
    if levels is None:
        levels = sorted({str(v) for v in present})
    index = {str(level): code for code, level in enumerate(levels)}
    codes = np.array([np.nan if _is_missing(v) else index[str(v)] for v in vals], dtype=np.float64)
    return codes, list(levels)


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v)) or v in ("", "?")
