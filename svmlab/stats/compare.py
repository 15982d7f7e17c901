"""Compare k methods over N datasets: ranks, Friedman, post-hoc tests, Wilcoxon.

:func:`compare` takes a dataset x method table and returns a :class:`Comparison`
holding everything the papers' statistical tables print; ``svmlab.stats.tables``
renders it and ``svmlab.stats.figures`` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from svmlab.errors import StatsInputError, UnknownNameError
from svmlab.stats.omnibus import Omnibus, friedman
from svmlab.stats.posthoc import (
    bonferroni_dunn_cd,
    control_comparison,
    nemenyi_cd,
    pairwise_comparison,
)
from svmlab.stats.ranks import average_ranks, rank_table
from svmlab.stats.wilcoxon import rank_sum, signed_rank

DIRECTION_WORDS = {"max": "max", "higher": "max", "min": "min", "lower": "min"}
MISSING_POLICIES = ("error", "drop")
WILCOXON_KINDS = ("signed_rank", "rank_sum")


@dataclass
class Comparison:
    """Everything a Friedman-type comparison of k methods over N datasets produces."""

    table: pd.DataFrame
    direction: str
    ranks: pd.DataFrame
    average_ranks: pd.Series
    omnibus: Omnibus
    control: str
    alpha: float
    bd_alpha: float
    bd_cd: float
    nemenyi_cd: float
    control_table: pd.DataFrame
    dropped_datasets: list[str] = field(default_factory=list)
    wilcoxon: str = "signed_rank"
    metric: str = ""

    @property
    def n_datasets(self) -> int:
        return self.table.shape[0]

    @property
    def n_methods(self) -> int:
        return self.table.shape[1]

    @property
    def beyond_cd(self) -> list[str]:
        """Methods whose average rank exceeds the control's by more than the Bonferroni–Dunn CD."""
        limit = self.average_ranks[self.control] + self.bd_cd
        return [m for m, r in self.average_ranks.items() if m != self.control and r > limit]

    def pairwise(self) -> dict[str, pd.DataFrame]:
        """NxN p-value matrices (unadjusted, Nemenyi, Holm, Shaffer)."""
        return pairwise_comparison(self.table, self.average_ranks)


def normalise_direction(direction: str) -> str:
    """Accept max/min or higher/lower (is better)."""
    try:
        return DIRECTION_WORDS[str(direction).lower()]
    except KeyError:
        raise StatsInputError(
            f"direction {direction!r} is not valid; use higher (max) or lower (min)"
        ) from None


def clean_table(table: pd.DataFrame, missing: str = "error") -> tuple[pd.DataFrame, list[str]]:
    """Check a dataset x method table and return it as floats (and the datasets dropped).

    Raises
    ------
    StatsInputError
        For a non-numeric cell (named by dataset and method), a method with no values,
        missing cells under ``missing="error"``, fewer than 2 methods or datasets.
    """
    if missing not in MISSING_POLICIES:
        raise StatsInputError(
            f"missing={missing!r} is not valid; choose one of {', '.join(MISSING_POLICIES)}"
        )
    if table.columns.duplicated().any():
        raise StatsInputError(
            f"duplicate method columns: {sorted(set(table.columns[table.columns.duplicated()]))}"
        )
    numeric = table.apply(pd.to_numeric, errors="coerce").astype(float)
    bad = numeric.isna() & table.notna() & (table.astype(str).apply(lambda c: c.str.strip()) != "")
    if bad.any().any():
        ds, m = next((d, c) for c in bad.columns for d in bad.index if bad.at[d, c])
        raise StatsInputError(
            f"non-numeric value {table.at[ds, m]!r} for dataset {ds!r}, method {m!r}"
        )
    empty = [m for m in numeric.columns if numeric[m].isna().all()]
    if empty:
        raise StatsInputError(f"method(s) {', '.join(map(str, empty))} have no values at all")
    dropped = []
    holes = numeric.isna()
    if holes.any().any():
        if missing == "error":
            cells = [f"{d}/{m}" for m in holes.columns for d in holes.index if holes.at[d, m]]
            raise StatsInputError(
                f"{len(cells)} missing cell(s): {', '.join(cells[:10])}"
                f"{' ...' if len(cells) > 10 else ''}; use missing='drop' (command line: --missing "
                "drop) to drop those datasets"
            )
        dropped = [str(d) for d in numeric.index[holes.any(axis=1)]]
        numeric = numeric.dropna(axis=0)
    if numeric.shape[1] < 2:
        raise StatsInputError(f"need at least 2 methods to compare, got {numeric.shape[1]}")
    if numeric.shape[0] < 2:
        raise StatsInputError(f"need at least 2 datasets to compare, got {numeric.shape[0]}")
    return numeric, dropped


def compare(
    table: pd.DataFrame,
    direction: str = "max",
    *,
    control: str | None = None,
    alpha: float = 0.05,
    bd_alpha: float | None = None,
    tie_correction: bool = False,
    missing: str = "error",
    wilcoxon: str = "signed_rank",
    zero_method: str = "demsar",
    metric: str = "",
) -> Comparison:
    """Rank the methods, run Friedman / Iman–Davenport and the 1xN post-hoc tests.

    Parameters
    ----------
    table : DataFrame (N datasets x k methods)
        One value per dataset and method (rows: datasets; columns: methods, in the
        order the tables should show them — it also breaks Holm ties).
    direction : {"max", "min", "higher", "lower"}
        Whether higher or lower values are better.
    control : str, optional
        The method the others are compared with; default: the best average rank.
    alpha : float
        Significance level of Holm's procedure and the Nemenyi CD.
    bd_alpha : float, optional
        Level of the Bonferroni–Dunn CD (the MIL study used 0.10); default ``alpha``.
    tie_correction : bool
        Apply the tie correction to Friedman's χ² (scipy does; the papers did not).
    missing : {"error", "drop"}
        What to do with missing cells: fail naming them, or drop those datasets.
    wilcoxon : {"signed_rank", "rank_sum"}
        Paired signed-rank (default, the papers' "Wilcoxon") or unpaired rank-sum
        (Mann–Whitney; HyDR-MI's "Wilcoxon").
    zero_method : {"demsar", "zsplit", "wilcox"}
        Zero differences in the signed-rank test (see ``svmlab.stats.wilcoxon``).
    """
    direction = normalise_direction(direction)
    if wilcoxon not in WILCOXON_KINDS:
        raise StatsInputError(
            f"wilcoxon={wilcoxon!r} is not valid; choose one of {', '.join(WILCOXON_KINDS)}"
        )
    values, dropped = clean_table(table, missing)
    values.columns = [str(c) for c in values.columns]
    ranks = rank_table(values, direction)
    avg = average_ranks(ranks)
    if control is None:
        control = str(avg.idxmin())
    elif control not in avg.index:
        raise UnknownNameError("method", control, list(avg.index))
    N, k = values.shape
    bd_alpha = alpha if bd_alpha is None else bd_alpha
    ctab = control_comparison(avg, N, control, alpha)
    pairs = _wilcoxon_columns(values, control, ctab.index, direction, wilcoxon, zero_method)
    ctab = pd.concat([pairs, ctab], axis=1)
    return Comparison(
        table=values,
        direction=direction,
        ranks=ranks,
        average_ranks=avg,
        omnibus=friedman(ranks, tie_correction=tie_correction),
        control=control,
        alpha=alpha,
        bd_alpha=bd_alpha,
        bd_cd=bonferroni_dunn_cd(k, N, bd_alpha),
        nemenyi_cd=nemenyi_cd(k, N, alpha),
        control_table=ctab,
        dropped_datasets=dropped,
        wilcoxon=wilcoxon,
        metric=metric,
    )


def _wilcoxon_columns(values, control, methods, direction, kind, zero_method) -> pd.DataFrame:
    """The control-vs-method Wilcoxon columns of the 1xN table (signed-rank or rank-sum)."""
    rows = []
    for m in methods:
        if kind == "signed_rank":
            r = signed_rank(values[control], values[m], direction, zero_method=zero_method)
            rows.append(
                {
                    "wilcoxon_r_plus": r.r_plus,
                    "wilcoxon_r_minus": r.r_minus,
                    "wilcoxon_p": r.p,
                    "wilcoxon_n": r.n,
                }
            )
        else:
            r = rank_sum(values[control], values[m])
            rows.append({"ranksum_W": r.W, "ranksum_z": r.z, "wilcoxon_p": r.p})
    return pd.DataFrame(rows, index=methods)


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a dataset x method matrix (CSV or Parquet; first column = dataset names).

    A tidy file with exactly the columns ``dataset``, ``method``, ``value`` is pivoted.
    Reading stops at a row whose first cell is ``Average`` or ``Ranks`` (summary rows
    of published tables).
    """
    path = Path(path)
    if not path.exists():
        raise StatsInputError(f"{path} does not exist")
    try:
        df = (
            pd.read_parquet(path)
            if path.suffix == ".parquet"
            else pd.read_csv(path, dtype=str, keep_default_na=False)
        )
    except Exception as exc:
        raise StatsInputError(f"{path}: cannot read as a table ({exc})") from None
    cols = [c.lower() for c in df.columns]
    if sorted(cols) == ["dataset", "method", "value"]:
        df.columns = cols
        return df.pivot(index="dataset", columns="method", values="value")
    first = df.columns[0]
    stop = df[first].astype(str).str.strip().str.lower().isin(["average", "ranks", "rank"])
    if stop.any():
        df = df.iloc[: int(np.argmax(stop.to_numpy()))]
    df = df.set_index(first)
    df.index = df.index.astype(str)
    df.index.name = "dataset"
    df = df.replace("", np.nan)
    return df
