"""Tests of svmlab.stats.figures: the CD diagram, the papers' rank bar chart and saving."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

matplotlib = pytest.importorskip("matplotlib")

import matplotlib.image  # noqa: E402, F811 (after the importorskip guard)
from matplotlib.colors import to_rgba  # noqa: E402

from svmlab.errors import SvmlabError  # noqa: E402
from svmlab.stats.figures import (  # noqa: E402
    CONTROL_COLOR,
    NOT_SIGNIFICANT_COLOR,
    WORSE_COLOR,
    FigureInputError,
    cd_diagram,
    classify_against_control,
    compute_cliques,
    rank_bars,
    save_figure,
)

# MTR study, aCC: Friedman average ranks over N = 24 data sets, k = 10 methods; the
# Bonferroni-Dunn CD at alpha = 0.05 printed in the text (spec mtr_mirsvm.md §6.3).
MTR_ACC = {
    "MORF": 5.4167,
    "ST": 6.6042,
    "MTS": 6.7708,
    "MTSC": 6.875,
    "RC": 6.1458,
    "ERC": 6.6042,
    "ERCC": 4.7708,
    "SVR": 4.9375,
    "SVRRC": 3.5625,
    "SVRCC": 2.8333,
}
MTR_CD = 2.4236

LONG_15 = {
    f"{letter}-a-method-with-a-rather-long-name-{i}": rank
    for i, (letter, rank) in enumerate(
        zip(
            "ABCDEFGHIJKLMNO",
            [1.2, 2.5, 2.9, 3.3, 4.1, 5.0, 5.6, 6.7, 7.3, 8.9, 9.4, 10.2, 11.8, 12.5, 14.6],
        )
    )
}


def _svg_texts(path) -> list[str]:
    """All text drawn in an SVG file, one string per <text> element."""
    root = ET.parse(path).getroot()
    return ["".join(el.itertext()) for el in root.iter() if el.tag.endswith("}text")]


def _check_files(paths, labels):
    assert [p.suffix for p in paths] == [".png", ".pdf", ".svg"]
    for p in paths:
        assert p.is_file() and p.stat().st_size > 0
    png, pdf, svg = paths
    image = matplotlib.image.imread(png)
    assert image.ndim == 3 and image.shape[2] in (3, 4)
    height, width = image.shape[:2]
    assert 300 <= width <= 5000 and 200 <= height <= 5000
    assert image.std() > 0.05  # not a blank canvas
    assert pdf.read_bytes().startswith(b"%PDF")
    texts = _svg_texts(svg)
    for label in labels:
        assert label in texts, f"{label!r} is not drawn as SVG text"


def _bars(fig):
    """(category, method) -> face colour of each rank bar, read from the artists' gids."""
    out = {}
    for ax in fig.axes:
        for patch in ax.patches:
            gid = patch.get_gid() or ""
            if gid.startswith("rank-bar:"):
                _, category, name = gid.split(":", 2)
                out[name] = (category, patch.get_facecolor(), patch.get_width(), patch.get_height())
    return out


# --------------------------------------------------------------------------- rendering


@pytest.mark.slow
def test_rank_bars_renders_and_saves_all_formats(tmp_path):
    fig = rank_bars(MTR_ACC, "SVRCC", MTR_CD, alpha=0.05, title="MTR aCC")
    paths = save_figure(fig, tmp_path / "nested" / "dir" / "bars_acc")
    out = tmp_path / "nested" / "dir"
    assert paths == [out / f"bars_acc.{ext}" for ext in ("png", "pdf", "svg")]
    _check_files(paths, list(MTR_ACC))
    svg_text = " ".join(_svg_texts(paths[2]))
    assert "CD = 2.424 (Bonferroni–Dunn, α = 0.05)" in svg_text
    assert "threshold = 2.833 + 2.424 = 5.257" in svg_text
    assert "SVRCC (control)" in svg_text


def test_cd_diagram_renders_and_saves_all_formats(tmp_path):
    fig = cd_diagram(MTR_ACC, MTR_CD, title="MTR aCC")
    paths = save_figure(fig, tmp_path / "cd_acc")
    _check_files(paths, list(MTR_ACC))
    texts = _svg_texts(paths[2])
    assert "CD = 2.424" in texts
    assert "average rank (lower is better)" in texts
    for rank in MTR_ACC.values():
        assert f"{rank:.2f}" in texts
    for tick in range(1, 11):
        assert str(tick) in texts


def test_vertical_rank_bars_and_given_axes(tmp_path):
    from matplotlib.figure import Figure

    fig = rank_bars(MTR_ACC, "SVRCC", MTR_CD, orientation="vertical")
    bars = _bars(fig)
    assert {n for n, (cat, *_rest) in bars.items() if cat == "worse"} == {
        "MORF",
        "ST",
        "MTS",
        "MTSC",
        "RC",
        "ERC",
    }
    assert math.isclose(bars["MORF"][3], MTR_ACC["MORF"])  # bar height = rank
    save_figure(fig, tmp_path / "v", formats=("png",))

    host = Figure(figsize=(14, 5), layout="constrained")
    ax1, ax2 = host.subplots(1, 2)
    assert cd_diagram(MTR_ACC, MTR_CD, ax=ax1) is host
    assert rank_bars(MTR_ACC, "SVRCC", MTR_CD, ax=ax2) is host
    (path,) = save_figure(host, tmp_path / "both", formats=[".PNG"])
    assert path.name == "both.png" and path.is_file()


def test_figures_are_not_registered_with_pyplot(tmp_path):
    import matplotlib.pyplot as plt

    before = set(plt.get_fignums())
    fig = cd_diagram(MTR_ACC, MTR_CD)
    fig2 = rank_bars(MTR_ACC, "SVRCC", MTR_CD)
    assert set(plt.get_fignums()) == before
    save_figure(fig, tmp_path / "a", formats=("png",))
    save_figure(fig2, tmp_path / "b", formats=("png",))
    assert not fig.axes and not fig2.axes  # released after saving


def test_import_does_not_load_matplotlib():
    code = "import sys, svmlab.stats.figures; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------- semantics


def test_beyond_cd_bars_are_exactly_the_methods_past_the_threshold():
    fig = rank_bars(MTR_ACC, "SVRCC", MTR_CD, alpha=0.05)
    bars = _bars(fig)
    assert list(bars) == list(MTR_ACC)  # one bar per method, in input order
    threshold = MTR_ACC["SVRCC"] + MTR_CD
    expected = {n for n, r in MTR_ACC.items() if r > threshold}
    # Spec §6.3: six methods are worse than SVRCC + CD = 5.2569.
    assert expected == {"MORF", "ST", "MTS", "MTSC", "RC", "ERC"}
    drawn_worse = {n for n, (_, color, *_) in bars.items() if color == to_rgba(WORSE_COLOR)}
    assert drawn_worse == expected
    assert {n for n, (cat, *_) in bars.items() if cat == "worse"} == expected
    assert bars["SVRCC"][1] == to_rgba(CONTROL_COLOR)
    for name in ("ERCC", "SVR", "SVRRC"):
        assert bars[name][1] == to_rgba(NOT_SIGNIFICANT_COLOR)
    for name, (_, _, width, _) in bars.items():
        assert math.isclose(width, MTR_ACC[name])  # bar length = average rank


def test_band_spans_control_to_control_plus_cd():
    fig = rank_bars(MTR_ACC, "SVRCC", MTR_CD)
    ax = fig.axes[0]
    spans = [p for p in ax.patches if not (p.get_gid() or "").startswith("rank-bar:")]
    assert len(spans) == 1
    band = spans[0]
    assert math.isclose(band.get_x(), MTR_ACC["SVRCC"])
    assert math.isclose(band.get_x() + band.get_width(), MTR_ACC["SVRCC"] + MTR_CD)


def test_classification_with_a_control_that_is_not_best():
    ranks = {"A": 1.3, "B": 3.7, "C": 2.5, "D": 3.1, "E": 4.9}
    cats = classify_against_control(ranks, "B", 1.0)
    assert cats == {
        "A": "better",
        "B": "control",
        "C": "better",
        "D": "not_significant",
        "E": "worse",
    }
    # a difference equal to cd is not significant, despite rounding
    assert classify_against_control({"X": 0.1 + 0.2, "Y": 1.3}, "X", 1.0)["Y"] == "not_significant"
    bars = _bars(rank_bars(ranks, "B", 1.0))
    assert {n for n, (c, *_) in bars.items() if c == "better"} == {"A", "C"}


def test_compute_cliques_constructed_example():
    ranks = {"A": 1.0, "B": 1.5, "C": 2.4, "D": 3.8, "E": 4.0, "F": 6.0}
    assert compute_cliques(ranks, 1.0) == [["A", "B"], ["B", "C"], ["D", "E"]]
    # a span equal to the CD is not significant
    assert compute_cliques({"A": 1.0, "B": 2.0, "C": 3.5}, 1.0) == [["A", "B"]]
    # input order does not matter; ties stay in input order inside a clique
    assert compute_cliques({"Z": 3.0, "Y": 1.0, "X": 3.0}, 0.5) == [["Z", "X"]]
    assert compute_cliques(ranks, 0.0) == []
    assert compute_cliques(ranks, 10.0) == [list("ABCDEF")]
    assert compute_cliques({"only": 1.0}, 1.0) == []


def test_compute_cliques_mtr_acc():
    assert compute_cliques(MTR_ACC, MTR_CD) == [
        ["SVRCC", "SVRRC", "ERCC", "SVR"],
        ["SVRRC", "ERCC", "SVR", "MORF"],
        ["ERCC", "SVR", "MORF", "RC", "ST", "ERC", "MTS", "MTSC"],
    ]


def _drawn_cliques(fig):
    out = []
    for line in fig.axes[0].lines:
        gid = line.get_gid() or ""
        if gid.startswith("cd-clique:"):
            out.append(gid.split(":", 1)[1].split("|"))
    return out


def test_cd_diagram_draws_computed_or_given_cliques():
    ranks = {"A": 1.0, "B": 1.5, "C": 2.4, "D": 3.8, "E": 4.0, "F": 6.0}
    fig = cd_diagram(ranks, 1.0)
    assert _drawn_cliques(fig) == compute_cliques(ranks, 1.0)
    given = [["A", "F"], ["C"], ["B", "D", "E"]]
    fig = cd_diagram(ranks, 1.0, cliques=given)
    assert _drawn_cliques(fig) == [["A", "F"], ["B", "D", "E"]]  # singletons need no bar
    assert _drawn_cliques(cd_diagram(ranks, 1.0, cliques=[])) == []


def test_cd_diagram_places_methods_on_the_rank_axis():
    fig = cd_diagram(MTR_ACC, MTR_CD)
    ax = fig.axes[0]
    foot = {}
    for line in ax.lines:
        gid = line.get_gid() or ""
        if gid.startswith("cd-line:"):
            xs = line.get_xdata()
            foot[gid.split(":", 1)[1]] = (xs[0], xs[-1])
    assert set(foot) == set(MTR_ACC)
    ordered = sorted(MTR_ACC, key=MTR_ACC.get)
    xs = [foot[n][0] for n in ordered]
    assert xs == sorted(xs)  # 1 (best) on the left
    # the better half is labelled on the left, the worse half on the right
    left = {n for n, (x0, x_end) in foot.items() if x_end < x0}
    assert left == set(ordered[:5])


def _overlaps(fig):
    fig.draw_without_rendering()
    texts = [t for ax in fig.axes for t in ax.texts if t.get_text() and t.get_visible()]
    for ax in fig.axes:
        if ax.axison:
            texts += [t for t in ax.get_yticklabels() + ax.get_xticklabels() if t.get_text()]
    boxes = [(t.get_text(), t.get_window_extent()) for t in texts]
    return [
        (a, b)
        for (a, ba), (b, bb) in itertools.combinations(boxes, 2)
        if ba.overlaps(bb) and ba.width > 0 and bb.width > 0
    ]


@pytest.mark.parametrize(
    "ranks, control, cd", [(MTR_ACC, "SVRCC", MTR_CD), (LONG_15, next(iter(LONG_15)), 3.1)]
)
def test_no_overlapping_labels(ranks, control, cd):
    assert _overlaps(cd_diagram(ranks, cd, title="title")) == []
    assert _overlaps(rank_bars(ranks, control, cd, alpha=0.05, title="title")) == []


def test_cd_longer_than_axis_and_tiny_inputs(tmp_path):
    save_figure(cd_diagram({"A": 1.3, "B": 1.7, "C": 2.5}, 9.0), tmp_path / "big", formats=["png"])
    save_figure(cd_diagram({"A": 1.0}, 0.5), tmp_path / "one", formats=["png"])
    save_figure(
        cd_diagram({"A": 1.0, "B": 2.0}, 0.0, lower_is_better_label=None),
        tmp_path / "zero",
        formats=["png"],
    )
    save_figure(rank_bars({"A": 1.0}, "A", 0.0), tmp_path / "bar1", formats=["png"])


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("func", ["cd", "bars", "cliques"])
def test_empty_ranks(func):
    with pytest.raises(ValueError, match="empty"):
        _call(func, {}, 1.0)


@pytest.mark.parametrize("func", ["cd", "bars", "cliques"])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "x"])
def test_non_finite_rank(func, bad):
    ranks = dict(MTR_ACC, MORF=bad)
    with pytest.raises(ValueError, match="MORF"):
        _call(func, ranks, 1.0)


@pytest.mark.parametrize("func", ["cd", "bars", "cliques"])
@pytest.mark.parametrize("cd", [-0.1, float("nan"), float("inf")])
def test_bad_cd(func, cd):
    with pytest.raises(ValueError, match="cd"):
        _call(func, MTR_ACC, cd)


def _call(func, ranks, cd):
    if func == "cd":
        return cd_diagram(ranks, cd)
    if func == "bars":
        return rank_bars(ranks, "SVRCC", cd)
    return compute_cliques(ranks, cd)


def test_unknown_control_names_valid_methods():
    with pytest.raises(ValueError, match="SVRC") as info:
        rank_bars(MTR_ACC, "SVRC", MTR_CD)
    message = str(info.value)
    assert "Valid methods" in message
    for name in MTR_ACC:
        assert name in message
    assert isinstance(info.value, SvmlabError) and isinstance(info.value, FigureInputError)


def test_other_bad_options(tmp_path):
    with pytest.raises(ValueError, match="alpha"):
        rank_bars(MTR_ACC, "SVRCC", MTR_CD, alpha=1.5)
    with pytest.raises(ValueError, match="orientation"):
        rank_bars(MTR_ACC, "SVRCC", MTR_CD, orientation="diagonal")
    with pytest.raises(ValueError, match="'NOPE'"):
        cd_diagram(MTR_ACC, MTR_CD, cliques=[["SVR", "NOPE"]])
    with pytest.raises(ValueError, match="list of lists"):
        cd_diagram(MTR_ACC, MTR_CD, cliques=["SVR"])
    with pytest.raises(ValueError, match="mapping"):
        cd_diagram([("A", 1.0)], 1.0)
    fig = cd_diagram(MTR_ACC, MTR_CD)
    with pytest.raises(ValueError, match="unsupported.*'docx'.*Valid formats"):
        save_figure(fig, tmp_path / "x", formats=("png", "docx"))
    with pytest.raises(ValueError, match="empty"):
        save_figure(fig, tmp_path / "x", formats=())
    assert not list(tmp_path.iterdir())  # nothing written on bad input


# --------------------------------------------------------------------------- all-pairs procedures

# A symmetric table: A and B, B and C not told apart; A and C, and D from all, are.
P4 = {
    "A": {"B": 0.40, "C": 0.01, "D": 0.001},
    "B": {"A": 0.40, "C": 0.30, "D": 0.002},
    "C": {"A": 0.01, "B": 0.30, "D": 0.04},
    "D": {"A": 0.001, "B": 0.002, "C": 0.04},
}
R4 = {"A": 1.2, "B": 2.0, "C": 2.6, "D": 4.2}


def test_cliques_from_pvalues_join_runs_of_pairs_not_rejected():
    from svmlab.stats.figures import cliques_from_pvalues

    assert cliques_from_pvalues(R4, P4, 0.05) == [["A", "B"], ["B", "C"]]
    assert cliques_from_pvalues(R4, P4, 0.005) == [["A", "B", "C"], ["C", "D"]]
    with pytest.raises(FigureInputError, match=r"no number for the pair \('D', 'E'\)"):
        cliques_from_pvalues({**R4, "E": 5.0}, P4, 0.05)


def test_cd_diagram_and_rank_bars_from_a_procedure(tmp_path):
    from svmlab.stats.figures import classify_by_pvalues, cliques_from_pvalues

    cliques = cliques_from_pvalues(R4, P4, 0.05)
    fig = cd_diagram(R4, None, cliques=cliques, title="Holm")
    gids = {line.get_gid() for ax in fig.axes for line in ax.lines}
    assert {"cd-clique:A|B", "cd-clique:B|C"} <= gids and "cd-clique:C|D" not in gids
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert not any(t.startswith("CD =") for t in texts)  # a procedure has no CD scale
    categories = classify_by_pvalues(R4, "B", P4, 0.05)
    assert categories == {
        "A": "not_significant",
        "B": "control",
        "C": "not_significant",
        "D": "worse",
    }
    bars = _bars(rank_bars(R4, "B", None, categories=categories, alpha=0.05, test_name="Holm"))
    assert {n: b[0] for n, b in bars.items()} == categories
    with pytest.raises(FigureInputError, match="give the categories"):
        rank_bars(R4, "B", None)
    with pytest.raises(FigureInputError, match="give the cliques"):
        cd_diagram(R4, None)


def test_pvalue_heatmap_marks_the_significant_pairs(tmp_path):
    from svmlab.stats.figures import pvalue_heatmap

    fig = pvalue_heatmap(P4, list(R4), alpha=0.05, title="Holm p-values")
    cells = {p.get_gid() for ax in fig.axes for p in ax.patches if p.get_gid()}
    assert "pvalue:A|C:sig" in cells and "pvalue:A|B:ns" in cells and "pvalue:C|D:sig" in cells
    assert len(cells) == 12  # k(k-1) off-diagonal cells
    (path,) = save_figure(fig, tmp_path / "heat", formats=("svg",))
    assert "0.040" in _svg_texts(path)
    with pytest.raises(FigureInputError, match="at least two methods"):
        pvalue_heatmap(P4, ["A"])
