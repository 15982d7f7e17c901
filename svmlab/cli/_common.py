"""What the commands of ``svmlab`` share: the statistics options, writing output, tables."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from svmlab.errors import SvmlabError


def stats_kwargs(args) -> dict:
    """The statistics options of ``report`` and ``stats`` as keywords of the analysis."""
    return {
        "control": args.control,
        "alpha": args.alpha,
        "bd_alpha": args.bd_alpha,
        "tie_correction": args.tie_correction,
        "missing": args.missing,
        "wilcoxon": args.wilcoxon,
        "zero_method": args.zero_method,
        "omnibus": args.omnibus,
        "pairwise": tuple(args.pairwise),
        "bergmann_hommel": args.bergmann_hommel,
    }


def figure_formats(args) -> tuple[str, ...]:
    """The checked ``--figures`` formats."""
    from svmlab.stats.analysis import check_figure_formats

    return check_figure_formats(args.figures)


def check_writable(path: Path | None, option: str, *, directory: bool) -> None:
    """Fail before any work when ``path`` (a file, or a directory to create files in) cannot
    be written; None (the option not given) passes.

    Raises
    ------
    SvmlabError
        One line naming the option, the path and why.
    """
    if path is None:
        return
    from svmlab.run_checks import can_write_in

    path = Path(path).expanduser().absolute()
    if not directory and path.is_dir():
        raise SvmlabError(f"{option} {path} is a directory; give a file name")
    if directory and path.exists() and not path.is_dir():
        raise SvmlabError(f"{option} {path} is a file, not a directory; give a directory")
    if not directory and path.exists() and not os.access(path, os.W_OK):
        raise SvmlabError(f"{option} {path} is not writable; give another file")
    probe = path if directory else path.parent
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir():
        raise SvmlabError(f"{option} {path} cannot be created: {probe} is a file")
    if not can_write_in(probe):
        raise SvmlabError(f"{option} {path} cannot be written: {probe} is not writable")


def emit(text: str, output: Path | None) -> None:
    """Write ``text`` to ``output`` (creating its directory), or to standard output."""
    if output:
        try:
            output.parent.mkdir(parents=True, exist_ok=True)
            output.write_text(text)
        except OSError as exc:
            raise SvmlabError(f"cannot write {output}: {exc.strerror or exc}") from None
        print(f"svmlab: wrote {output}", file=sys.stderr)
    else:
        print(text, end="")


def table(rows: list[dict], columns: list[str]) -> str:
    """``rows`` as a plain-text table of ``columns`` (a header, a rule, one line a row)."""
    rows = [{c: "" if r.get(c) is None else r.get(c) for c in columns} for r in rows]
    widths = {
        c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) if rows else len(c) for c in columns
    }
    lines = ["  ".join(c.ljust(widths[c]) for c in columns).rstrip()]
    lines.append("  ".join("-" * widths[c] for c in columns))
    lines += ["  ".join(str(r.get(c, "")).ljust(widths[c]) for c in columns).rstrip() for r in rows]
    return "\n".join(lines)
