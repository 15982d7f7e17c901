"""Formats svmlab registers but cannot read: Julia JLD (HDF5) files.

Their readers raise :class:`~svmlab.errors.DataFormatError` naming the file and what
reading it would take, so a registered file of such a format fails loudly instead of
being skipped.
"""

from __future__ import annotations

from ...errors import DataFormatError

_WHY = {
    "jld": (
        "Julia JLD files are HDF5 and have no svmlab reader; reading them needs h5py, "
        "which svmlab does not depend on"
    ),
}


def unsupported_reason(format: str) -> str:
    """Why files of ``format`` cannot be read."""
    return _WHY[format]


def read_jld(path, **_options):
    """Raise :class:`DataFormatError`: JLD (HDF5) files are registered but not readable."""
    raise DataFormatError(path, unsupported_reason("jld"))
