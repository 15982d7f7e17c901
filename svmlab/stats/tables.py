"""The papers' table layouts for a :class:`~svmlab.stats.compare.Comparison`.

Each function returns a :class:`svmlab.reporting.Section` (a titled DataFrame with the
cells to set in bold), which ``svmlab.reporting.render`` writes as Markdown, LaTeX
(booktabs) or CSV.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from svmlab.stats.compare import Comparison
from svmlab.stats.sections import Section


def fmt_p(p: float) -> str:
    """p-values as the papers print them: 4 decimals, or 1.9E-08 style below 0.001."""
    if p is None or not np.isfinite(p):
        return "—"
    return f"{p:.4f}" if p >= 1e-3 else f"{p:.1E}"


def results_section(cmp: Comparison, digits: int = 4) -> Section:
    """Datasets x methods values, then the column average and the average-rank rows.

    The best value per dataset and the best average rank are marked bold.
    """
    t = cmp.table
    body = t.map(lambda v: f"{v:.{digits}f}")
    body.loc["Average"] = [f"{v:.{digits}f}" for v in t.mean(axis=0)]
    body.loc["Rank"] = [f"{v:.4f}" for v in cmp.average_ranks]
    best = {}
    for ds, row in t.iterrows():
        target = row.max() if cmp.direction == "max" else row.min()
        best[ds] = [m for m, v in row.items() if v == target]
    best["Rank"] = [m for m, r in cmp.average_ranks.items() if r == cmp.average_ranks.min()]
    body.index.name = "dataset"
    word = "higher" if cmp.direction == "max" else "lower"
    title = (
        f"{cmp.metric or 'values'} per dataset ({word} is better), column average and average rank"
    )
    note = ""
    if cmp.dropped_datasets:
        note = f"dropped for missing cells: {', '.join(cmp.dropped_datasets)}"
    return Section(title, body, best, note)


def omnibus_section(cmp: Comparison) -> Section:
    """Friedman χ² and Iman–Davenport F with degrees of freedom and p, plus the CDs."""
    o = cmp.omnibus
    rows = [
        {
            "test": "Friedman" + (" (tie-corrected)" if o.tie_correction else ""),
            "statistic": f"{o.chi2:.4f}",
            "df": f"{o.chi2_df}",
            "p": fmt_p(o.chi2_p),
        },
        {
            "test": "Iman-Davenport",
            "statistic": f"{o.F:.4f}",
            "df": f"({o.F_df1}, {o.F_df2})",
            "p": fmt_p(o.F_p),
        },
        {
            "test": f"Bonferroni-Dunn CD (alpha={cmp.bd_alpha:g})",
            "statistic": f"{cmp.bd_cd:.4f}",
            "df": "",
            "p": "",
        },
        {
            "test": f"Nemenyi CD (alpha={cmp.alpha:g})",
            "statistic": f"{cmp.nemenyi_cd:.4f}",
            "df": "",
            "p": "",
        },
    ]
    table = pd.DataFrame(rows).set_index("test")
    beyond = cmp.beyond_cd
    note = (
        f"N = {cmp.n_datasets} datasets, k = {cmp.n_methods} methods. Worse than {cmp.control} by "
        "more than the "
        f"Bonferroni-Dunn CD: {', '.join(beyond) if beyond else 'none'}"
    )
    return Section("Friedman / Iman-Davenport test", table, None, note)


def control_section(cmp: Comparison) -> Section:
    """The papers' 1xN layout: Wilcoxon R+ R− p | z-test p | Holm threshold, plus adjusted p."""
    c = cmp.control_table
    rows = {}
    for m, r in c.iterrows():
        row = {}
        if cmp.wilcoxon == "signed_rank":
            row.update({"R+": f"{r['wilcoxon_r_plus']:g}", "R-": f"{r['wilcoxon_r_minus']:g}"})
        else:
            row.update({"W": f"{r['ranksum_W']:g}", "Z": f"{r['ranksum_z']:.3f}"})
        row.update(
            {
                "Wilcoxon p": fmt_p(r["wilcoxon_p"]),
                "z-test p": fmt_p(r["p"]),
                "Holm threshold": f"{r['holm_threshold']:.4f}",
                "Holm adj. p": fmt_p(r["holm"]),
                "Bonf-Dunn adj. p": fmt_p(r["bonferroni_dunn"]),
                "Holm rejects": "yes" if r["holm_reject"] else "no",
            }
        )
        rows[m] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = f"{cmp.control} vs."
    best = {
        m: [
            col
            for col in ("Wilcoxon p", "z-test p")
            if (r["wilcoxon_p"] if col == "Wilcoxon p" else r["p"]) <= cmp.alpha
        ]
        for m, r in c.iterrows()
    }
    kind = "signed-rank" if cmp.wilcoxon == "signed_rank" else "rank-sum"
    note = (
        "z-test p is unadjusted (the papers' 'Nemenyi p-value'); Holm threshold is alpha/i in "
        "ascending-p order "
        "(the papers' 'Holm p-value'; ties keep the column order); bold: p <= alpha"
    )
    return Section(
        f"{cmp.control} against each method (Wilcoxon {kind}, z-test, Holm; alpha = {cmp.alpha:g})",
        table,
        best,
        note,
    )


def pairwise_section(cmp: Comparison, which: str = "holm", matrices: dict | None = None) -> Section:
    """NxN adjusted p-values (``p``, ``nemenyi``, ``holm``, ``shaffer`` or
    ``wilcoxon_holm``), bold where p <= alpha."""
    m = (matrices or cmp.pairwise())[which]
    table = m.map(fmt_p)
    for name in m.index:
        table.at[name, name] = ""
    table.index.name = "method"
    best = {a: [b for b in m.columns if a != b and m.at[a, b] <= cmp.alpha] for a in m.index}
    return Section(f"all pairs: {which} p-values (bold: p <= {cmp.alpha:g})", table, best)


def meta_rank_section(average_ranks_by_metric: pd.DataFrame) -> Section:
    """Metrics x methods average ranks with the Average and meta-Rank rows (MIL Table 4.14)."""
    from svmlab.stats.ranks import meta_rank

    meta = meta_rank(average_ranks_by_metric)
    body = pd.concat(
        [average_ranks_by_metric, meta.rename(index={"average": "Average", "rank": "Rank"})]
    )
    table = body.map(lambda v: f"{v:.4f}")
    table.index.name = "metric"
    best = {
        row: [m for m, v in body.loc[row].items() if v == body.loc[row].min()] for row in body.index
    }
    return Section("average ranks per metric and the meta-rank", table, best)


def comparison_sections(cmp: Comparison, *, pairwise=("holm",)) -> list[Section]:
    """Every table of a comparison, in the order the papers print them, then the NxN tables."""
    out = [results_section(cmp), omnibus_section(cmp), control_section(cmp)]
    if pairwise:
        matrices = cmp.pairwise()
        out += [pairwise_section(cmp, which, matrices) for which in pairwise]
    return out
