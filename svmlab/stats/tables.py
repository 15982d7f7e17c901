"""The papers' table layouts for a :class:`~svmlab.stats.compare.Comparison`.

Each function returns a :class:`svmlab.stats.sections.Section` (a titled DataFrame with the
cells to set in bold), which ``svmlab.report.render.render`` writes as Markdown, LaTeX
(booktabs), CSV or HTML.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from svmlab.errors import StatsInputError
from svmlab.stats.compare import Comparison
from svmlab.stats.sections import Section

#: The all-pairs p-value tables, each named with its definition in the table header.
PAIRWISE_LABELS = {
    "p": "unadjusted z-test p",
    "nemenyi": "Nemenyi (the papers' / KEEL's: min(1, m p), m = k(k-1)/2)",
    "nemenyi_bonferroni": "Nemenyi, Bonferroni form (min(1, m p), m = k(k-1)/2; KEEL, "
    "Garcia & Herrera 2008)",
    "nemenyi_tukey": "Nemenyi, Tukey form (studentized range q(k, inf), Demsar 2006; "
    "scikit-posthocs)",
    "holm": "Holm (step-down over the m = k(k-1)/2 pairs)",
    "shaffer": "Shaffer (static, logically related pairs)",
    "bergmann": "Bergmann-Hommel (exhaustive sets, exact for k <= 9)",
    "wilcoxon_holm": "Wilcoxon signed-rank, Holm-adjusted over the pairs",
}
#: The Bergmann-Hommel table's header for each definition of its adjusted p
#: (``Comparison.bergmann_hommel``; ``svmlab.stats.bergmann``).
BERGMANN_HOMMEL_LABELS = {
    "exhaustive": "Bergmann-Hommel (exhaustive sets: max over the sets I holding the pair of "
    "|I| min p_I, Garcia & Herrera 2008; exact for k <= 9)",
    "monotone": "Bergmann-Hommel, monotone (exhaustive sets, then made non-decreasing in the "
    "unadjusted p, as scmamp; exact for k <= 9)",
}
#: The adjusted p-values of the 1xN table (columns of ``Comparison.control_table``).
ADJUSTED_1XN = {
    "bonferroni_dunn": "Bonferroni",
    "holm": "Holm",
    "hochberg": "Hochberg",
    "finner": "Finner",
    "hommel": "Hommel",
    "holland": "Holland",
    "li": "Li",
}
NO_VERDICT = "—"


def fmt_p(p: float) -> str:
    """p-values as the papers print them: 4 decimals, or 1.9E-08 style below 0.001."""
    if p is None or not np.isfinite(p):
        return "—"
    return f"{p:.4f}" if p >= 1e-3 else f"{p:.1E}"


def about(cmp: Comparison) -> str:
    """What a comparison compares, for its headings: the metric and its direction.

    >>> import pandas as pd
    >>> from svmlab.stats import compare
    >>> t = pd.DataFrame({"a": [0.9, 0.8, 0.7], "b": [0.8, 0.7, 0.75]}, index=list("xyz"))
    >>> about(compare(t, "max", metric="accuracy"))
    'accuracy, higher is better'
    """
    word = "higher" if cmp.direction == "max" else "lower"
    return f"{cmp.metric}, {word} is better" if cmp.metric else f"{word} is better"


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
    p_of = (lambda p: NO_VERDICT) if cmp.degenerate else fmt_p
    rows = [
        {
            "test": "Friedman" + (" (tie-corrected)" if o.tie_correction else ""),
            "statistic": f"{o.chi2:.4f}",
            "df": f"{o.chi2_df}",
            "p": p_of(o.chi2_p),
        },
        {
            "test": "Iman-Davenport",
            "statistic": f"{o.F:.4f}",
            "df": f"({o.F_df1}, {o.F_df2})",
            "p": p_of(o.F_p),
        },
    ]
    t = cmp.rank_test
    if t is not None:
        rows.append(
            {
                "test": t.name + (" (tie-corrected)" if t.tie_correction else ""),
                "statistic": f"{t.statistic:.4f}",
                "df": ", ".join(map(str, t.df)) if len(t.df) == 1 else f"{t.df}",
                "p": p_of(t.p),
            }
        )
    unit = "" if t is None else f", {cmp.score_name} units"
    rows += [
        {
            "test": f"Bonferroni-Dunn CD (alpha={cmp.bd_alpha:g}{unit})",
            "statistic": f"{cmp.bd_cd:.4f}",
            "df": "",
            "p": "",
        },
        {
            "test": f"Nemenyi CD (Tukey: studentized range, alpha={cmp.alpha:g}{unit})",
            "statistic": f"{cmp.nemenyi_cd:.4f}",
            "df": "",
            "p": "",
        },
    ]
    table = pd.DataFrame(rows).set_index("test")
    title = "Friedman / Iman-Davenport test" + (f"; {t.name} test" if t is not None else "")
    title += f" ({about(cmp)})"
    return Section(title, table, None, _omnibus_note(cmp))


def _omnibus_note(cmp: Comparison) -> str:
    """N and k, the methods beyond the Bonferroni–Dunn CD on either side, or why no verdict."""
    head = f"N = {cmp.n_datasets} datasets, k = {cmp.n_methods} methods. "
    if cmp.degenerate:
        return head + f"No verdict: {cmp.degenerate}"
    worse = ", ".join(cmp.beyond_cd) or "none"
    better = ", ".join(cmp.better_beyond_cd) or "none"
    return head + (
        f"Beyond the Bonferroni-Dunn CD from {cmp.control} ({cmp.score_name}s): worse: "
        f"{worse}; better: {better}"
    )


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
                "Holm rejects": _verdict(cmp, r["holm_reject"]),
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
            and not cmp.degenerate
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
        f"{cmp.control} against each method (Wilcoxon {kind}, z-test, Holm; alpha = "
        f"{cmp.alpha:g}; {about(cmp)})",
        table,
        best,
        note,
    )


def _verdict(cmp: Comparison, reject) -> str:
    """ "yes"/"no" for a rejection, or "—" when the input allows no verdict."""
    return NO_VERDICT if cmp.degenerate else ("yes" if reject else "no")


def posthoc_1xn_section(cmp: Comparison) -> Section:
    """The generic 1xN table: score, z, unadjusted p and every adjusted p against the control.

    Columns: the method's score (average rank, aligned rank or Quade T), z = (R_control −
    R_i)/SE (the sign KEEL and Demšar print: negative when the method ranks worse), the
    unadjusted two-sided p, the adjusted p of Bonferroni(–Dunn), Holm, Hochberg, Finner,
    Hommel, Holland and Li, the direction of the difference, the two-sided Bonferroni–Dunn
    decision (|R_i − R_control| > CD at ``bd_alpha``) and Holm's step-down decision at
    ``alpha``. Bold: adjusted p <= alpha.
    """
    c = cmp.control_table
    se_z = -c["z"]  # control_comparison's z is (R_i - R_control)/SE
    table = pd.DataFrame(index=c.index)
    table[cmp.score_name] = [f"{v:.4f}" for v in c["rank"]]
    table["z"] = [f"{v:.4f}" for v in se_z]
    table["p (unadjusted)"] = [fmt_p(v) for v in c["p"]]
    for column, label in ADJUSTED_1XN.items():
        table[label] = [fmt_p(v) for v in c[column]]
    table["direction"] = list(c["direction"])
    table[f"BD rejects (alpha={cmp.bd_alpha:g})"] = [
        _verdict(cmp, v) for v in c["bonferroni_dunn_reject"]
    ]
    table[f"Holm rejects (alpha={cmp.alpha:g})"] = [_verdict(cmp, v) for v in c["holm_reject"]]
    table.index.name = f"{cmp.control} vs."
    best = {
        m: [
            label
            for column, label in ADJUSTED_1XN.items()
            if r[column] <= cmp.alpha and not cmp.degenerate
        ]
        for m, r in c.iterrows()
    }
    note = (
        f"z = (R_{cmp.control} - R_i)/SE on the {cmp.score_name}s; adjusted over the k - 1 = "
        f"{cmp.n_methods - 1} comparisons: Bonferroni min(1, (k-1)p); Holm step-down (k-i)p; "
        "Hochberg step-up (k-i)p; Finner 1-(1-p)^((k-1)/i); Hommel closed Simes tests; Holland "
        "1-(1-p)^(k-i); Li p/(p+1-p_max). Step-wise procedures order the p ascending; equal p "
        "(tied ranks) keep the table's column order, which also fixes the order of the Holm "
        "thresholds. BD rejects: the two-sided Bonferroni-Dunn test (better or worse)."
    )
    if cmp.degenerate:
        note += f" No verdict: {cmp.degenerate}"
    title = (
        f"{cmp.control} against each method: z, unadjusted and adjusted p "
        f"({cmp.score_name}s; alpha = {cmp.alpha:g}; {about(cmp)})"
    )
    return Section(title, table, best, note)


def pairwise_label(cmp: Comparison, which: str) -> str:
    """The header of the all-pairs table ``which``: its name and definition (for
    ``bergmann``, the definition of the adjusted p the comparison uses)."""
    if which == "bergmann":
        return BERGMANN_HOMMEL_LABELS[cmp.bergmann_hommel]
    return PAIRWISE_LABELS.get(which, which)


def pairwise_section(cmp: Comparison, which: str = "holm", matrices: dict | None = None) -> Section:
    """NxN p-values of one all-pairs procedure (a key of :data:`PAIRWISE_LABELS`), bold where
    p <= alpha; the header names the procedure's definition.

    Raises
    ------
    StatsInputError
        ``bergmann`` for more than 9 methods (the message names the limit).
    """
    if matrices is None or which not in matrices:
        matrices = cmp.pairwise((which,))
    if which not in matrices:
        _missing_pairwise(which, cmp.n_methods)
    m = matrices[which]
    table = m.map(fmt_p)
    for name in m.index:
        table.at[name, name] = ""
    table.index.name = "method"
    best = {
        a: [b for b in m.columns if a != b and m.at[a, b] <= cmp.alpha and not cmp.degenerate]
        for a in m.index
    }
    scores = "" if cmp.omnibus_test == "friedman" else f" on {cmp.score_name}s"
    title = f"all pairs: {pairwise_label(cmp, which)}{scores} p-values ({about(cmp)})"
    note = f"bold: p <= {cmp.alpha:g}" + (
        f". No verdict: {cmp.degenerate}" if cmp.degenerate else ""
    )
    return Section(title, table, best, note)


def _missing_pairwise(which: str, k: int) -> None:
    """Raise the one-line error for an all-pairs table that cannot be computed."""
    if which == "bergmann":
        from svmlab.stats.bergmann import check_k

        try:
            check_k(k)
        except ValueError as exc:
            raise StatsInputError(f"--pairwise bergmann: {exc}") from None
    raise StatsInputError(
        f"unknown all-pairs procedure {which!r}; choose one of {', '.join(PAIRWISE_LABELS)}"
    )


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


def comparison_sections(
    cmp: Comparison, *, pairwise=("holm",), matrices: dict | None = None
) -> list[Section]:
    """Every table of a comparison, in the order the papers print them, then the NxN tables."""
    out = [results_section(cmp), omnibus_section(cmp), control_section(cmp)]
    out.append(posthoc_1xn_section(cmp))
    if pairwise:
        matrices = matrices or cmp.pairwise(pairwise)
        out += [pairwise_section(cmp, which, matrices) for which in pairwise]
    return out
