"""The published statistical tests beside the same tests on a run.

The MTR, MIL and OLLAWV studies of Melki (2018) print, under each per-dataset table, the
average Friedman ranks and a control-vs-method table: the Wilcoxon signed-rank p, the
unadjusted z-test p of the rank difference (the "Nemenyi p-value" column), Holm's
step-down thresholds (the "Holm p-value" column) and, in the text, the Iman–Davenport p
and the Bonferroni–Dunn critical difference. ``published/tests.yaml`` holds those numbers
as printed, keyed by the CSV of the per-dataset table they belong to.

:func:`side_by_side_tests` puts, for each method compared with the paper's control, the paper's
number and verdict of each test beside the run's: the run's tests are computed by
:func:`svmlab.stats.compare.compare` on the run's own per-dataset table (same control,
direction and levels as the paper, the paper's class convention where it has one). Where
the paper printed no p for a test (the MIL tables give only Holm's thresholds), the paper's
verdict is derived from its printed average ranks. The last row counts the verdicts that
differ; the report's summary collects it.

>>> published_tests("mtr_acc.csv")["control"]
'SVRCC'
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import numpy as np
import pandas as pd
import yaml

from svmlab.stats.compare import compare
from svmlab.stats.posthoc import bonferroni_dunn_cd, holm_rejections, rank_se, z_test_p

#: Index of the row counting the verdicts that differ ("3 of 27").
VERDICTS_ROW = "verdicts that differ"
#: Column of each method's tests whose verdict differs.
DIFFERS = "verdicts differ"


@cache
def _all_published() -> dict:
    with resources.files("svmlab.reproduce").joinpath("published", "tests.yaml").open() as fh:
        return yaml.safe_load(fh)


def published_tests(csv: str) -> dict | None:
    """The tests published with the per-dataset table ``csv`` (None when it has none)."""
    return _all_published().get(csv)


def paper_verdicts(pub: dict) -> pd.DataFrame:
    """The paper's tests per method compared with its control, as printed or derived.

    Returns a DataFrame indexed by method (the paper's order, control excluded) with
    ``rank``, ``wilcoxon_p`` (NaN when not printed), ``wilcoxon`` (significant at
    ``wilcoxon_alpha``), ``z_p`` (printed, or from the printed ranks), ``holm`` (Holm's
    step-down rejection at ``holm_alpha``) and ``bd`` ("worse", "better" or "": beyond the
    Bonferroni–Dunn CD, the printed one where there is one).
    """
    ranks = pd.Series(pub["average_ranks"], dtype=float)
    control, n = pub["control"], int(pub["N"])
    others = ranks.drop(index=control)
    diff = others - ranks[control]
    printed_z = pub.get("z_p") or {}
    derived = z_test_p(diff.to_numpy(), rank_se(len(ranks), n))
    z_p = np.array([printed_z.get(m, d) for m, d in zip(others.index, derived)], dtype=float)
    cd = pub.get("cd") or bonferroni_dunn_cd(len(ranks), n, pub["bd_alpha"])
    wil = pub.get("wilcoxon") or {}
    alpha_w = pub.get("wilcoxon_alpha", 0.05)
    out = pd.DataFrame({"rank": others, "z_p": z_p}, index=others.index)
    out["wilcoxon_p"] = [wil[m]["p"] if m in wil else np.nan for m in others.index]
    out["wilcoxon"] = out["wilcoxon_p"] < alpha_w
    out["holm"] = holm_rejections(z_p, pub["holm_alpha"])
    out["bd"] = np.where(diff > cd, "worse", np.where(diff < -cd, "better", ""))
    return out


def run_verdicts(table: pd.DataFrame, pub: dict):
    """The same tests on a run's per-dataset table (rows: datasets, columns: the paper's
    method names). Methods the run lacks are left out, and datasets missing a value.

    Returns ``(verdicts, comparison)`` with the columns of :func:`paper_verdicts`, or
    ``(None, reason)`` when no test can be run.
    """
    control = pub["control"]
    present = [m for m in pub["average_ranks"] if m in table and table[m].notna().any()]
    if control not in present:
        return None, f"the run has no {control} (the paper's control)"
    values = table[present].dropna()
    if values.shape[0] < 2 or len(present) < 2:
        return None, "the run has fewer than 2 complete datasets or 2 methods"
    c = compare(
        values,
        pub["direction"],
        control=control,
        alpha=pub["holm_alpha"],
        bd_alpha=pub["bd_alpha"],
    )
    ctab = c.control_table
    out = pd.DataFrame({"rank": ctab["rank"], "z_p": ctab["p"]}, index=ctab.index)
    out["wilcoxon_p"] = ctab["wilcoxon_p"]
    out["wilcoxon"] = out["wilcoxon_p"] < pub.get("wilcoxon_alpha", 0.05)
    out["holm"] = ctab["holm_reject"].astype(bool)
    worse = ctab["direction"].eq("worse")
    out["bd"] = np.where(ctab["bonferroni_dunn_reject"], np.where(worse, "worse", "better"), "")
    return out, c


def _p(p: float, significant: bool) -> str:
    if not np.isfinite(p):
        return ""
    return f"{p:.2g} {'sig.' if significant else 'n.s.'}"


def _holm(p: float, reject: bool) -> str:
    return f"{p:.2g} {'rejects' if reject else '-'}"


def side_by_side_tests(table: pd.DataFrame, pub: dict) -> tuple[pd.DataFrame, str]:
    """The paper's tests beside the run's, one row per method compared with the control.

    Parameters
    ----------
    table : DataFrame
        The run's per-dataset values (datasets x the paper's method names).
    pub : dict
        The published tests (:func:`published_tests`).

    Returns
    -------
    (DataFrame, str)
        The table (columns ``avg. rank``, ``Wilcoxon p``, ``z-test p / Holm`` and
        ``Bonferroni-Dunn``, each ``paper`` and ``ours``, then ``verdicts differ``; last
        row :data:`VERDICTS_ROW`) and a note naming the control, the levels, N and the
        omnibus test of both.
    """
    paper = paper_verdicts(pub)
    ours, c = run_verdicts(table, pub)
    has_wilcoxon = paper["wilcoxon_p"].notna().any()
    rows, differing, compared = {}, 0, 0
    control = pub["control"]
    rows[f"{control} (control)"] = {
        "avg. rank paper": f"{pub['average_ranks'][control]:.2f}",
        "avg. rank ours": f"{c.average_ranks[control]:.2f}" if ours is not None else "",
    }
    for m, p in paper.iterrows():
        cells = {"avg. rank paper": f"{p['rank']:.2f}"}
        if has_wilcoxon:
            cells["Wilcoxon p paper"] = _p(p["wilcoxon_p"], p["wilcoxon"])
        cells["z-test p / Holm paper"] = _holm(p["z_p"], p["holm"])
        cells["Bonferroni-Dunn paper"] = p["bd"] or "-"
        if ours is None or m not in ours.index:
            rows[m] = cells
            continue
        o = ours.loc[m]
        cells["avg. rank ours"] = f"{c.average_ranks[m]:.2f}"
        if has_wilcoxon:
            cells["Wilcoxon p ours"] = _p(o["wilcoxon_p"], o["wilcoxon"])
        cells["z-test p / Holm ours"] = _holm(o["z_p"], o["holm"])
        cells["Bonferroni-Dunn ours"] = o["bd"] or "-"
        tests = [("Holm", "holm"), ("Bonferroni-Dunn", "bd")]
        if has_wilcoxon and np.isfinite(p["wilcoxon_p"]):
            tests.insert(0, ("Wilcoxon", "wilcoxon"))
        diff = [name for name, key in tests if bool(p[key] != o[key])]
        compared += len(tests)
        differing += len(diff)
        cells[DIFFERS] = ", ".join(diff)
        rows[m] = cells
    columns = ["avg. rank paper", "avg. rank ours"]
    if has_wilcoxon:
        columns += ["Wilcoxon p paper", "Wilcoxon p ours"]
    columns += [
        "z-test p / Holm paper",
        "z-test p / Holm ours",
        "Bonferroni-Dunn paper",
        "Bonferroni-Dunn ours",
        DIFFERS,
    ]
    omnibus_differs = _omnibus_differs(pub, c if ours is not None else None)
    if ours is not None:
        compared += omnibus_differs is not None
        differing += bool(omnibus_differs)
        rows[VERDICTS_ROW] = {DIFFERS: f"{differing} of {compared}"}
    out = pd.DataFrame.from_dict(rows, orient="index").reindex(columns=columns)
    out = out.astype(object).fillna("")
    out.index.name = f"{control} vs."
    return out, _note(pub, c)


def _omnibus_differs(pub: dict, c) -> bool | None:
    """Whether the Iman–Davenport verdicts (at ``holm_alpha``) differ (None: not comparable)."""
    printed = (pub.get("iman_davenport") or {}).get("p")
    if c is None or printed is None or not np.isfinite(c.omnibus.F_p):
        return None
    alpha = pub["holm_alpha"]
    return (printed < alpha) != (c.omnibus.F_p < alpha)


def _note(pub: dict, c) -> str:
    k = len(pub["average_ranks"])
    parts = [
        f"paper: {pub.get('tables', 'the published tests')}, N = {pub['N']} datasets, "
        f"k = {k}; Holm at alpha = {pub['holm_alpha']}, Bonferroni-Dunn at "
        f"alpha = {pub['bd_alpha']}"
        + (f", Wilcoxon at {pub['wilcoxon_alpha']}" if pub.get("wilcoxon_alpha") else "")
    ]
    iman = pub.get("iman_davenport") or {}
    if iman:
        printed = ", ".join(f"{key} = {v:.3g}" for key, v in iman.items())
        parts.append(f"paper Iman-Davenport {printed}")
    if isinstance(c, str):
        parts.append(f"no tests on this run: {c}")
    else:
        o = c.omnibus
        parts.append(
            f"this run: N = {o.n_datasets}, k = {o.n_methods}, Iman-Davenport "
            f"F = {o.F:.3g}, p = {o.F_p:.3g}"
        )
        if c.degenerate:
            parts.append(f"no verdict on this run: {c.degenerate}")
    return "; ".join(parts)
