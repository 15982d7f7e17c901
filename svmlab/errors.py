"""Exceptions that carry a message meant for the person at the command line.

Every error svmlab raises on bad input derives from :class:`SvmlabError`; the CLI
prints its message (one clear sentence naming the problem and the valid choices)
and exits non-zero without a traceback.
"""

from __future__ import annotations


class SvmlabError(Exception):
    """Base class of all user-facing svmlab errors."""


class ConfigError(SvmlabError):
    """An experiment, solver, protocol or runner configuration is invalid."""


class UnknownNameError(ConfigError, KeyError):
    """A name (dataset, solver, protocol, experiment, metric...) is not known.

    Parameters
    ----------
    kind : str
        What was looked up, e.g. ``"dataset"``.
    name : str
        The name that was not found.
    valid : iterable of str
        The names that would have been accepted.
    """

    def __init__(self, kind: str, name: str, valid):
        self.kind, self.name, self.valid = kind, name, sorted(valid)
        close = _close_matches(name, self.valid)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        shown = ", ".join(self.valid[:60]) + (" ..." if len(self.valid) > 60 else "")
        super().__init__(f"unknown {kind} {name!r}.{hint} Valid {kind}s: {shown}")

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return self.args[0]


class DataError(SvmlabError):
    """A data file is missing, corrupted, or not in the expected format."""


class DataFormatError(DataError):
    """A data file could not be parsed; names the file and, where known, the line.

    Parameters
    ----------
    path : str or Path
    message : str
    line : int, optional
        1-based line number of the offending line.
    """

    def __init__(self, path, message: str, line: int | None = None):
        self.path, self.line = str(path), line
        where = f"{self.path}, line {line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class ChecksumError(DataError):
    """A data file's sha256 does not match the registry."""

    def __init__(self, path, expected: str, actual: str):
        self.path, self.expected, self.actual = str(path), expected, actual
        super().__init__(
            f"{path}: sha256 mismatch (expected {expected}, got {actual}); "
            "the file is corrupted or a different version - delete it and run `svmlab data fetch`"
        )


class DataUnavailableError(DataError):
    """A dataset has no local copy and no source it can be fetched from."""


class ResultsError(SvmlabError):
    """A results directory cannot be used (not writable, or from another experiment)."""


def _close_matches(name, valid):
    import difflib

    return difflib.get_close_matches(str(name), [str(v) for v in valid], n=3, cutoff=0.6)


class StatsInputError(SvmlabError):
    """A dataset x method table cannot be compared (non-numeric or missing cells, too small...)."""
