"""What the figures share: the colours, a private Agg canvas and text measurement.

matplotlib is imported inside the functions, so importing this module does not load it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.figure import Figure

# Okabe–Ito colours: distinguishable with the common colour-vision deficiencies and
# still distinct when printed in grey scale (dark / light / mid).
CONTROL_COLOR = "#0072B2"  # blue: the control method
NOT_SIGNIFICANT_COLOR = "#A6CEE3"  # light blue: within the CD band
WORSE_COLOR = "#D55E00"  # vermilion: significantly worse than the control
BETTER_COLOR = "#009E73"  # bluish green: significantly better than the control
BAND_COLOR = "#808080"  # the papers' grey critical-difference band


def new_figure(width: float, height: float) -> Figure:
    """A figure on a private Agg canvas (no pyplot, no display)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def text_width_in(text: str, fontsize: float, weight: str = "normal") -> float:
    """Width of ``text`` in inches at ``fontsize`` points, with the default font."""
    if not text:
        return 0.0
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    path = TextPath((0, 0), text, size=fontsize, prop=FontProperties(weight=weight))
    extents = path.get_extents()
    # TextPath measures the ink; add the side bearings that a rendered label keeps.
    return (extents.x1 + 0.1 * fontsize) / 72.0


def sorted_by_rank(ranks: Mapping[str, float]) -> list[tuple[str, float]]:
    """Methods sorted by rank, ties kept in input order (stable)."""
    return sorted(ranks.items(), key=lambda item: item[1])
