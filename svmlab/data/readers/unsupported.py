"""Formats svmlab would register but cannot read: none at present.

A format listed in ``_WHY`` gets a reader here that raises
:class:`~svmlab.errors.DataFormatError` naming the file and what reading it would take,
so a registered file of such a format fails loudly instead of being skipped, and
``scripts/make_registry.py`` registers its files with ``status: unsupported`` (its
``UNSUPPORTED_FORMATS``). R data and Julia JLD files were such formats until
:mod:`.rdata` and :mod:`.jld` read them.
"""

from __future__ import annotations

_WHY: dict[str, str] = {}


def unsupported_reason(format: str) -> str:
    """Why files of ``format`` cannot be read."""
    return _WHY[format]
