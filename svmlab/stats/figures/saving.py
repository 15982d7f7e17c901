"""Writing a figure in several formats at once, with its text kept editable."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from svmlab.stats.figures._inputs import FigureInputError

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.figure import Figure

SUPPORTED_FORMATS = ("png", "pdf", "svg", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")


def save_figure(
    fig: Figure,
    path_stem: str | Path,
    formats: Sequence[str] = ("png", "pdf", "svg"),
    *,
    dpi: float = 200,
    close: bool = True,
) -> list[Path]:
    """Write a figure in several formats and close it.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to write.
    path_stem : str or Path
        Output path without extension; ``".<format>"`` is appended for each format
        (so dots already in the stem, as in ``"ranks_v1.2"``, are kept). Missing parent
        directories are created.
    formats : sequence of str, default=("png", "pdf", "svg")
        File formats, with or without a leading dot, case-insensitive.
    dpi : float, default=200
        Resolution of raster formats.
    close : bool, default=True
        Release the figure afterwards (removes it from pyplot if pyplot manages it).

    Returns
    -------
    paths : list of Path
        The files written, in the order of ``formats``.

    Raises
    ------
    FigureInputError
        (a ``ValueError``) if ``formats`` is empty or names an unsupported format.

    Notes
    -----
    SVG text is written as ``<text>`` elements (``svg.fonttype = "none"``) and PDF/PS
    fonts are embedded as TrueType (``fonttype = 42``), so the labels stay searchable
    and editable. Figures are cropped to their content (``bbox_inches="tight"``).
    """
    import matplotlib

    wanted = check_formats(formats)
    stem = Path(path_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    rc: dict[str, Any] = {"svg.fonttype": "none", "pdf.fonttype": 42, "ps.fonttype": 42}
    paths: list[Path] = []
    try:
        with matplotlib.rc_context(rc):
            for fmt in dict.fromkeys(wanted):
                path = stem.with_name(f"{stem.name}.{fmt}")
                fig.savefig(
                    path,
                    format=fmt,
                    dpi=dpi,
                    bbox_inches="tight",
                    pad_inches=0.05,
                    facecolor="white",
                )
                paths.append(path)
    finally:
        if close:
            _close(fig)
    return paths


def check_formats(formats: Sequence[str] | str) -> list[str]:
    """The formats in lower case without leading dots; raise if none or one is unknown."""
    if isinstance(formats, str):
        formats = (formats,)
    wanted = [str(f).lower().lstrip(".") for f in formats]
    if not wanted:
        raise FigureInputError("formats is empty: name at least one file format, e.g. 'png'")
    bad = [f for f in wanted if f not in SUPPORTED_FORMATS]
    if bad:
        raise FigureInputError(
            f"unsupported figure format(s) {', '.join(map(repr, bad))}. "
            f"Valid formats: {', '.join(SUPPORTED_FORMATS)}"
        )
    return wanted


def _close(fig: Figure) -> None:
    import sys

    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:  # only touch pyplot if the caller already uses it
        pyplot.close(fig)
    fig.clear()
